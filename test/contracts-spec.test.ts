// The contracts against the specification itself: the tables of contracts/spec/*.md are parsed (never
// copied) and every field, required flag, type, enum and bound they state must be in the OpenAPI documents.

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadContracts } from '../src/contract/index.js';

const SPEC_DIR = new URL('../contracts/spec/', import.meta.url);
const SHARED_SPEC_DIR = new URL('../../shared/spec/', import.meta.url);
const SPEC_FILES = ['screening-api.md', 'jobs-market-mcp-api.md'] as const;

interface Table {
  header: string[];
  rows: Record<string, string>[];
  /** The last prose line above the table (e.g. 'Variant `kind = "resume_ref"`:'). */
  lead: string;
}
interface Section {
  level: number;
  title: string;
  /** Heading titles of the enclosing sections, outermost first. */
  parents: string[];
  tables: Table[];
  prose: string;
}

function parseSpec(md: string): Section[] {
  const out: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let cur: Section | null = null;
  let lead = '';
  let table: Table | null = null;
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  for (const line of md.split('\n')) {
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const level = h[1].length;
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      cur = { level, title: h[2].trim(), parents: stack.map((s) => s.title), tables: [], prose: '' };
      stack.push({ level, title: cur.title });
      out.push(cur);
      table = null;
      lead = '';
      continue;
    }
    if (!cur) continue;
    if (line.trim().startsWith('|')) {
      const row = cells(line);
      if (!table) {
        table = { header: row, rows: [], lead };
        cur.tables.push(table);
      } else if (!row.every((c) => /^:?-+:?$/.test(c))) {
        table.rows.push(Object.fromEntries(table.header.map((k, i) => [k, row[i] ?? ''])));
      }
      continue;
    }
    table = null;
    if (line.trim()) {
      lead = line.trim();
      cur.prose += line + '\n';
    }
  }
  return out;
}

const spec = Object.fromEntries(
  SPEC_FILES.map((f) => [f, parseSpec(readFileSync(new URL(f, SPEC_DIR), 'utf8'))]),
) as Record<(typeof SPEC_FILES)[number], Section[]>;

const contracts = await loadContracts();
const schemasOf = (api: 'screening' | 'jobs') => contracts.dereferenced[api].components.schemas as Record<string, any>;

/** Every JSON type a schema admits, looking through anyOf/oneOf and `const`. */
function typesOf(s: any): Set<string> {
  const out = new Set<string>();
  if (!s || typeof s !== 'object') return out;
  for (const t of [s.type].flat()) if (t) out.add(t);
  if (s.const !== undefined && !s.type) out.add(typeof s.const === 'number' ? 'number' : typeof s.const);
  for (const b of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) for (const t of typesOf(b)) out.add(t);
  return out;
}

/** Checks one table cell such as "string (date-time) or null", "array of AuditEvent", "string, constant `x`". */
function expectType(prop: any, cell: string, where: string, components: Record<string, any>) {
  const types = typesOf(prop);
  const c = cell.trim();
  if (/^any JSON value$/i.test(c)) {
    expect(types.size, `${where}: any JSON value means no type constraint`).toBe(0);
    return;
  }
  if (/ or null$/.test(c)) expect(types.has('null'), `${where}: nullable`).toBe(true);
  const base = c.replace(/ or null$/, '');
  const named = /^(?:array of )?([A-Z]\w+)$/.exec(base);
  if (named && components[named[1]]) {
    const target = base.startsWith('array of ') ? prop.items : prop;
    if (base.startsWith('array of ')) expect(types.has('array'), `${where}: array`).toBe(true);
    expect(target, `${where}: is the ${named[1]} schema`).toBe(components[named[1]]);
    return;
  }
  const m = /^(string|integer|number|boolean|object|array)\b/.exec(base);
  expect(m, `${where}: understood type cell '${cell}'`).not.toBeNull();
  const t = m![1];
  expect(
    types.has(t) || (t === 'number' && types.has('integer')),
    `${where}: type ${t} (has ${[...types].join(', ')})`,
  ).toBe(true);
  if (/\((ISO 8601 )?date-time\)/.test(base))
    expect(prop.format ?? prop.anyOf?.[0]?.format, `${where}: date-time`).toBe('date-time');
  if (/\(URL\)|\(URI\)/.test(base)) expect(prop.format, `${where}: URL`).toBe('uri');
  const constant = /constant `([^`]+)`/.exec(base);
  if (constant) expect(String(prop.const), `${where}: constant`).toBe(constant[1]);
  if (/^array of string$/.test(base))
    expect(typesOf(prop.items).has('string'), `${where}: items are strings`).toBe(true);
  const atLeast = /at least (\d+) item/.exec(base);
  if (atLeast) expect(prop.minItems, `${where}: minItems`).toBe(Number(atLeast[1]));
}

/** Checks what a Notes cell states: enums, ranges, constants, minimum lengths. */
function expectNotes(prop: any, notes: string, where: string) {
  const n = notes.trim();
  if (/^(One of )?(`[^`]+`(, | or |,? or )?)+\.?$/.test(n)) {
    const values = [...n.matchAll(/`([^`]+)`/g)].map((x) => x[1]);
    const allowed = prop.enum ?? (prop.const !== undefined ? [prop.const] : undefined);
    expect(allowed ? [...allowed].sort() : allowed, `${where}: values`).toEqual(values.sort());
  }
  const between = /Between (\d+) and (\d+) inclusive/.exec(n);
  if (between) {
    expect(prop.minimum, `${where}: minimum`).toBe(Number(between[1]));
    expect(prop.maximum, `${where}: maximum`).toBe(Number(between[2]));
  }
  const chars = /(\d+) to (\d+) characters/.exec(n);
  if (chars) {
    expect(prop.minLength, `${where}: minLength`).toBe(Number(chars[1]));
    expect(prop.maxLength, `${where}: maxLength`).toBe(Number(chars[2]));
  }
  const minLen = /Minimum length (\d+)/.exec(n);
  if (minLen) expect(prop.minLength, `${where}: minLength`).toBe(Number(minLen[1]));
  const constant = /^Constant `([^`]+)`/.exec(n);
  if (constant) expect(String(prop.const), `${where}: constant`).toBe(constant[1]);
  const shape = /^Shape `([a-z]+_)</.exec(n);
  if (shape)
    expect(
      new RegExp(prop.pattern).test(`${shape[1]}x`) && !new RegExp(prop.pattern).test('x'),
      `${where}: pattern`,
    ).toBe(true);
}

/** Table sections of "2. Resources and their fields" (and the delivery body) -> the component schemas. */
function resourceTargets(doc: (typeof SPEC_FILES)[number], section: Section, table: Table): string[] {
  const byTitle: Record<string, string[]> = {
    'Search response': ['SearchResponse'],
    'Apply request body': ['ApplyRequest'],
    'Delivery body': ['ScoredDelivery', 'ReviewDecidedDelivery'],
  };
  if (byTitle[section.title]) return byTitle[section.title];
  const first = section.title.split(/\s/)[0];
  if (first === 'CandidateBlob') {
    const kind = /kind = "(\w+)"/.exec(table.lead)?.[1];
    return kind === 'resume_ref' ? ['ResumeRefCandidate'] : kind === 'structured' ? ['StructuredCandidate'] : [];
  }
  return [first];
}

describe('the vendored specification', () => {
  for (const f of SPEC_FILES) {
    it.skipIf(!existsSync(new URL(f, SHARED_SPEC_DIR)))(`${f} is identical to ../shared/spec/${f}`, () => {
      expect(readFileSync(new URL(f, SPEC_DIR), 'utf8')).toBe(readFileSync(new URL(f, SHARED_SPEC_DIR), 'utf8'));
    });
  }
});

describe('every resource table of the specification is in the contract', () => {
  for (const doc of SPEC_FILES) {
    const api = doc === 'screening-api.md' ? 'screening' : 'jobs';
    const fieldTables = spec[doc].flatMap((section) =>
      section.tables.filter((t) => t.header[0] === 'Field').map((table) => ({ section, table })),
    );
    it(`${doc}: the parser found its field tables`, () => {
      expect(fieldTables.length).toBeGreaterThanOrEqual(doc === 'screening-api.md' ? 10 : 3);
    });
    for (const { section, table } of fieldTables) {
      const targets = resourceTargets(doc, section, table);
      it(`${doc} § ${section.title}${table.lead.startsWith('Variant') ? ` (${table.lead})` : ''}`, () => {
        expect(targets.length, `no schema mapped for table under '${section.title}'`).toBeGreaterThan(0);
        const components = schemasOf(api);
        const allRequired = /All fields required/i.test(section.prose);
        for (const name of targets) {
          const schema = components[name];
          expect(schema, `component schema ${name}`).toBeDefined();
          for (const row of table.rows) {
            const field = row.Field;
            const where = `${name}.${field}`;
            const prop = schema.properties?.[field];
            expect(prop, `${where} is in the contract`).toBeDefined();
            if ('Required' in row) {
              expect(schema.required?.includes(field) ?? false, `${where} required`).toBe(row.Required === 'yes');
            } else if (allRequired) {
              expect(schema.required, `${where} required (all fields required)`).toContain(field);
            }
            expectType(prop, row.Type, where, components);
            if (row.Notes && name !== 'ReviewDecidedDelivery' && name !== 'ScoredDelivery')
              expectNotes(prop, row.Notes, where);
          }
          if (/No (other )?properties other than those listed|no other properties allowed/i.test(section.prose)) {
            expect(schema.additionalProperties, `${name} is closed`).toBe(false);
          }
        }
      });
    }
  }

  it('the delivery body `event` values are the two event kinds', () => {
    const s = schemasOf('screening');
    const table = spec['screening-api.md'].find((x) => x.title === 'Event kinds')!.tables[0];
    const kinds = table.rows.map((r) => r.Event).sort();
    expect([s.ScoredDelivery.properties.event.const, s.ReviewDecidedDelivery.properties.event.const].sort()).toEqual(
      kinds,
    );
    for (const r of table.rows) {
      const delivery = r.Event === 'screening.scored' ? s.ScoredDelivery : s.ReviewDecidedDelivery;
      expect(delivery.properties.result).toBe(s[r['`result` type']]);
    }
  });

  it('the ten states of section 3 are the ScreeningState enum', () => {
    const prose = spec['screening-api.md'].find((x) => x.title === '3. States and transitions')!.prose;
    const line = prose.split('\n').find((l) => l.startsWith('A request is in exactly one of'))!;
    const states = [...line.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(states).toHaveLength(10);
    expect([...schemasOf('screening').ScreeningState.enum].sort()).toEqual(states.sort());
  });

  it('the error code tables are the ErrorCode enums of both documents', () => {
    for (const doc of SPEC_FILES) {
      const table = spec[doc].find((x) => x.title === '7. Errors')!.tables[0];
      const codes = table.rows.map((r) => r.code).sort();
      expect(codes).toHaveLength(8);
      expect([...schemasOf(doc === 'screening-api.md' ? 'screening' : 'jobs').ErrorCode.enum].sort()).toEqual(codes);
    }
  });
});

describe('the parameter tables of the specification are in the contract', () => {
  const paramsOf = (operationId: string) => {
    const op = contracts.operation(operationId);
    const item = contracts.dereferenced[op.api].paths[op.path];
    return [...(item.parameters ?? []), ...(item[op.method.toLowerCase()].parameters ?? [])] as any[];
  };

  it('the audit query parameters', () => {
    const section = spec['screening-api.md'].find((x) => x.title.startsWith('GET {base_url}/api/screening/v1/audit'))!;
    const table = section.tables.find((t) => t.header[0] === 'Query parameter')!;
    expect(table.rows.length).toBe(3);
    const params = paramsOf('getAudit');
    expect(params.map((p) => p.name).sort()).toEqual(table.rows.map((r) => r['Query parameter']).sort());
    for (const row of table.rows) {
      const p = params.find((x) => x.name === row['Query parameter']);
      expect(p.in).toBe('query');
      expect(Boolean(p.required), `${p.name} required`).toBe(row.Required === 'yes');
      expectType(p.schema, row.Type, `audit ${p.name}`, schemasOf('screening'));
      const range = /(\d+) to (\d+), default (\d+)/.exec(row.Notes);
      if (range) expect([p.schema.minimum, p.schema.maximum, p.schema.default]).toEqual(range.slice(1).map(Number));
    }
  });

  it('the search query parameters', () => {
    const section = spec['jobs-market-mcp-api.md'].find((x) => x.title === 'REST')!;
    const table = section.tables.find((t) => t.header[0] === 'Parameter')!;
    expect(table.rows.length).toBe(8);
    const params = paramsOf('searchJobs');
    expect(params.map((p) => p.name).sort()).toEqual(table.rows.map((r) => r.Parameter).sort());
    for (const row of table.rows) {
      const p = params.find((x) => x.name === row.Parameter);
      const where = `search ${p.name}`;
      expect(p.in).toBe('query');
      expect(Boolean(p.required), `${where} optional`).toBe(false);
      expectType(p.schema, row.Type, where, schemasOf('jobs'));
      const bounds = row['Allowed values / bounds'];
      const values = [...bounds.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      if (values.length) expect([...p.schema.enum].sort(), `${where} values`).toEqual(values.sort());
      const range = /(\d+) to (\d+), default (\d+)/.exec(bounds);
      if (range) expect([p.schema.minimum, p.schema.maximum, p.schema.default]).toEqual(range.slice(1).map(Number));
    }
  });

  it('every REST endpoint of the endpoint table is an operation at that method and path', () => {
    const table = spec['jobs-market-mcp-api.md']
      .find((x) => x.title === 'REST')!
      .tables.find((t) => t.header[0] === 'Method')!;
    expect(table.rows.length).toBe(8);
    for (const row of table.rows) {
      const concrete = row.Path.replace(/\{(\w+)\}/g, 'sample-$1');
      expect(contracts.match(row.Method, concrete), `${row.Method} ${row.Path}`).not.toBeNull();
      expect(contracts.match(row.Method, concrete)!.op.path).toBe(row.Path);
    }
  });

  it('the market parameters: locale id|en on roles, skills limit 1..100 default 25', () => {
    for (const id of ['listRoles', 'getRoleReport']) {
      expect([...paramsOf(id).find((p) => p.name === 'locale').schema.enum].sort()).toEqual(['en', 'id']);
    }
    const limit = paramsOf('listSkills').find((p) => p.name === 'limit').schema;
    expect([limit.minimum, limit.maximum, limit.default]).toEqual([1, 100, 25]);
  });

  it('the documented statuses of each screening endpoint', () => {
    const line = spec['screening-api.md']
      .find((x) => x.title === '7. Errors')!
      .prose.split('\n')
      .find((l) => l.startsWith('Documented statuses per endpoint'))!;
    const ids: Record<string, string> = { submit: 'submitScreen', usage: 'getUsage', audit: 'getAudit' };
    for (const [, name, list] of line.matchAll(/(submit|usage|audit) ([\d, ]+)/g)) {
      const op = contracts.operation(ids[name]);
      const responses = contracts.dereferenced.screening.paths[op.path][op.method.toLowerCase()].responses;
      const specOnly = Object.keys(responses).filter((s) => !responses[s]['x-policy'] && !s.startsWith('2'));
      expect(specOnly.sort(), name).toEqual(
        list
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .sort(),
      );
    }
  });
});
