// The layering of src/, enforced on the real import graph: the domain knows no adapter, kernel or root;
// REST, MCP and the sandbox do not import each other; the contract loader and the errors sit at the
// bottom; no circle between the parts; nothing imports the composition root; the harness takes nothing
// of src/ but the contract loader. The rule checker itself is proved on planted edges first. Every
// domain module's header names the requirement and decision ids it implements, all of them real.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  harnessViolations,
  importEdges,
  layeringViolations,
  partOf,
  sourceFiles,
  type Edge,
} from './support/imports.js';

const repo = path.resolve(import.meta.dirname, '..');
const srcEdges = importEdges(repo, [path.join(repo, 'src')]);
const edge = (from: string, to: string): Edge => ({ from, to });

describe('the layering rules catch what they name (planted edges)', () => {
  const planted: Array<[string, Edge]> = [
    ['the domain importing an adapter', edge('src/domain/core.ts', 'src/http/jobs.ts')],
    ['the domain importing the kernel', edge('src/domain/core.ts', 'src/web/auth.ts')],
    ['the domain importing the sandbox', edge('src/domain/core.ts', 'src/sandbox/control/index.ts')],
    ['the domain importing the root', edge('src/domain/context.ts', 'src/config.ts')],
    ['the domain importing a store implementation', edge('src/domain/core.ts', 'src/store/memory.ts')],
    ['a store importing an adapter', edge('src/store/memory.ts', 'src/http/jobs.ts')],
    ['MCP importing REST', edge('src/mcp/keyed.ts', 'src/http/jobs.ts')],
    ['REST importing MCP', edge('src/http/jobs.ts', 'src/mcp/card.ts')],
    ['the sandbox importing REST', edge('src/sandbox/control/admin.ts', 'src/http/screening.ts')],
    ['the kernel importing MCP', edge('src/web/auth.ts', 'src/mcp/keyed.ts')],
    ['the contract loader importing the domain', edge('src/contract/operation.ts', 'src/domain/plans.ts')],
    ['the errors importing the contract', edge('src/errors/errors.ts', 'src/contract/index.ts')],
    ['an adapter importing the root', edge('src/mcp/anon.ts', 'src/app.ts')],
    ['the listener command importing the domain', edge('src/listen/cli.ts', 'src/domain/webhooks/signer.ts')],
  ];
  for (const [what, e] of planted) {
    it(`fails on ${what}`, () => {
      expect(layeringViolations([...srcEdges, e])).not.toEqual([]);
    });
  }

  it('names a circle between parts', () => {
    const cycle = layeringViolations([edge('src/a/x.ts', 'src/b/y.ts'), edge('src/b/y.ts', 'src/a/z.ts')]);
    expect(cycle.some((v) => v.startsWith('circle') && v.includes('a → b'))).toBe(true);
  });

  it('fails on a harness import of service code', () => {
    expect(harnessViolations([edge('conformance/checks/ledger.ts', 'src/domain/errors.ts')])).toHaveLength(1);
    expect(harnessViolations([edge('conformance/contract.ts', 'src/contract/index.ts')])).toEqual([]);
  });

  it('tells the root files from the parts', () => {
    expect([
      partOf('src/app.ts'),
      partOf('src/domain/core.ts'),
      partOf('src/mcp/tools/hire.ts'),
      partOf('test/x.ts'),
    ]).toEqual(['root', 'domain', 'mcp', null]);
  });
});

describe('the import graph of src/', () => {
  it('is read (every top-level part is seen)', () => {
    const parts = new Set(srcEdges.map((e) => partOf(e.from)));
    for (const p of ['root', 'contract', 'domain', 'web', 'http', 'mcp', 'sandbox', 'store', 'replication'])
      expect(parts.has(p), p).toBe(true);
  });

  it('keeps every layering rule', () => {
    expect(layeringViolations(srcEdges)).toEqual([]);
  });

  it('leaves the harness with nothing of src/ but the contract loader', () => {
    expect(harnessViolations(importEdges(repo, [path.join(repo, 'conformance')]))).toEqual([]);
  });
});

describe('rules findable by id', () => {
  const catalogue = readFileSync(path.join(repo, 'contracts/requirements.yaml'), 'utf8');
  const decisions = readFileSync(path.join(repo, 'contracts/DECISIONS.md'), 'utf8');
  const requirementIds = new Set([...catalogue.matchAll(/- id: ([A-Z]+-[A-Z]+-\d+)/g)].map((m) => m[1]));
  const decisionIds = new Set([...decisions.matchAll(/^### (D-\d+)/gm)].map((m) => m[1]));
  const header = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('//')))
      .join('\n');

  it.each(sourceFiles(path.join(repo, 'src/domain')).map((f) => path.relative(repo, f)))(
    '%s names the requirements and decisions it implements',
    (file) => {
      const text = header(path.join(repo, file));
      expect(text, file).toMatch(/Requirements:|[A-Z]+-[A-Z]+-\d+/);
      const unknown = [
        ...[...text.matchAll(/\b(?:SCR|JOB|MCP|POL)-[A-Z]+-\d+\b/g)]
          .map((m) => m[0])
          .filter((id) => !requirementIds.has(id)),
        ...[...text.matchAll(/\bD-(\d+)\b/g)]
          .map((m) => `D-${m[1].padStart(2, '0')}`)
          .filter((id) => !decisionIds.has(id)),
      ];
      expect(unknown, file).toEqual([]);
    },
  );
});
