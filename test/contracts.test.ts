// The contracts themselves: both OpenAPI documents are valid and compile in strict mode, their examples
// validate, the requirement catalogue is consistent with DECISIONS.md and the specification, and the
// derived types are current. (The loader's behaviour: contracts-loader.test.ts.)

import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadContracts, type ApiName } from '../src/contract/index.js';
import { generateTypes } from '../src/contract/typegen.js';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const APIS: ApiName[] = ['screening', 'jobs'];

const contracts = await loadContracts();

describe('the OpenAPI documents', () => {
  for (const api of APIS) {
    it(`${api}.openapi.yaml is a valid OpenAPI 3.1 document (swagger-parser)`, async () => {
      const doc = await SwaggerParser.validate(structuredClone(parse(read(`contracts/${api}.openapi.yaml`))));
      expect((doc as any).openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('1.0.0');
    });

    it(`${api}: every operation needs the bearer scheme and has an operationId`, () => {
      const doc = contracts.documents[api];
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      for (const item of Object.values<any>(doc.paths)) {
        for (const op of Object.values<any>(item)) {
          expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
          expect(op.security).toEqual([{ bearerAuth: [] }]);
        }
      }
    });

    it(`${api}: every x-decision names an entry of DECISIONS.md`, () => {
      const ids = new Set([...read('contracts/DECISIONS.md').matchAll(/^### (D-\d+)/gm)].map((m) => m[1]));
      const used = [...read(`contracts/${api}.openapi.yaml`).matchAll(/x-decision: (\S+)/g)].map((m) => m[1]);
      expect(used.length).toBeGreaterThan(3);
      for (const id of used) expect(ids.has(id), id).toBe(true);
    });

    it(`${api}: the loader reads the document exactly as a YAML parser does`, () => {
      expect(JSON.parse(JSON.stringify(contracts.documents[api]))).toEqual(
        parse(read(`contracts/${api}.openapi.yaml`)),
      );
    });
  }

  it('every validator compiles in strict mode', () => {
    expect(() => contracts.precompile()).not.toThrow();
  });

  it('every documented example validates against its schema', () => {
    let count = 0;
    for (const api of APIS) {
      for (const [name, schema] of Object.entries<any>(contracts.documents[api].components.schemas)) {
        for (const example of schema.examples ?? []) {
          expect(contracts.validate(`${api}:${name}`, example), `${api} ${name} example`).toEqual([]);
          count++;
        }
      }
    }
    expect(count).toBeGreaterThan(20);
  });
});

describe('requirements.yaml', () => {
  const { requirements } = parse(read('contracts/requirements.yaml')) as { requirements: any[] };
  const decisions = new Set([...read('contracts/DECISIONS.md').matchAll(/^### (D-\d+)/gm)].map((m) => m[1]));
  const headings: Record<string, string[]> = Object.fromEntries(
    ['screening-api.md', 'jobs-market-mcp-api.md'].map((f) => [
      f,
      [...read(`contracts/spec/${f}`).matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1].trim()),
    ]),
  );
  const AREA =
    /^(SCR-(AUTH|SUBMIT|IDEMP|CREDIT|USAGE|AUDIT|LEDGER|STATE|REVIEW|HOOK|ERR|LIMIT|VER)|JOB-(AUTH|SEARCH|GET|APPLY|ME|MKT|RATE|TIER|ERR|VER)|MCP-(KEYED|ANON|DISC|TOOL)|POL-[A-Z]+)-\d+$/;

  it('has a plausible number of entries, each well-formed with a unique id', () => {
    expect(requirements.length).toBeGreaterThanOrEqual(80);
    expect(requirements.length).toBeLessThanOrEqual(200);
    const ids = requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of requirements) {
      expect(r.id, r.id).toMatch(AREA);
      expect(['must', 'policy'], r.id).toContain(r.level);
      expect(r.id.startsWith('POL-'), `${r.id}: POL- ids exactly for policy items`).toBe(r.level === 'policy');
      expect(typeof r.text === 'string' && r.text.length > 15, r.id).toBe(true);
      expect(
        Object.keys(r).every((k) =>
          ['id', 'source', 'level', 'text', 'decision', 'observable', 'observes'].includes(k),
        ),
        r.id,
      ).toBe(true);
    }
  });

  it('every policy item names a DECISIONS entry that exists (and so does every must item that names one)', () => {
    for (const r of requirements) {
      if (r.level === 'policy') expect(r.decision, r.id).toBeDefined();
      if (r.decision !== undefined) expect(decisions.has(r.decision), `${r.id} -> ${r.decision}`).toBe(true);
    }
  });

  it('every item cites a section that exists in the specification', () => {
    for (const r of requirements) {
      const list = headings[r.source?.doc];
      expect(list, `${r.id}: doc ${r.source?.doc}`).toBeDefined();
      const section = String(r.source.section);
      expect(
        list.some((h) => h === section || h.startsWith(`${section} (`)),
        `${r.id}: section '${section}'`,
      ).toBe(true);
    }
  });

  it('every area of the specification has must requirements', () => {
    const areas = new Set(requirements.filter((r) => r.level === 'must').map((r) => r.id.replace(/-\d+$/, '')));
    for (const a of [
      'SCR-AUTH',
      'SCR-SUBMIT',
      'SCR-IDEMP',
      'SCR-CREDIT',
      'SCR-USAGE',
      'SCR-AUDIT',
      'SCR-LEDGER',
      'SCR-STATE',
      'SCR-REVIEW',
      'SCR-HOOK',
      'SCR-ERR',
      'SCR-LIMIT',
      'SCR-VER',
      'JOB-AUTH',
      'JOB-SEARCH',
      'JOB-GET',
      'JOB-APPLY',
      'JOB-ME',
      'JOB-MKT',
      'JOB-RATE',
      'JOB-TIER',
      'JOB-ERR',
      'JOB-VER',
      'MCP-KEYED',
      'MCP-ANON',
      'MCP-DISC',
      'MCP-TOOL',
    ]) {
      expect(areas.has(a), a).toBe(true);
    }
  });

  it('DECISIONS.md ids are unique and ascending (areas of work keep ranges of their own, e.g. D-80..D-89)', () => {
    const ids = [...read('contracts/DECISIONS.md').matchAll(/^### (D-\d+)/gm)].map((m) => Number(m[1].slice(2)));
    expect(ids.length).toBeGreaterThanOrEqual(40);
    expect(ids.slice(0, 51)).toEqual(ids.slice(0, 51).map((_, i) => i + 1));
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });
});

describe('derived types', () => {
  it('the generated files are up to date (run `npm run gen:types` after changing a contract)', async () => {
    const generated = await generateTypes();
    expect(Object.keys(generated).length).toBe(3);
    for (const [file, content] of Object.entries(generated)) {
      expect(read(file), `${file} is stale: run npm run gen:types`).toBe(content);
    }
  }, 60_000);
});
