import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from './requirements.js';
import { mustTable, README, withTable } from './requirements-table.js';

describe("the README's table of must requirements", () => {
  const catalogue = loadCatalogue(path.resolve('contracts/requirements.yaml'));
  const readme = readFileSync(README, 'utf8');

  it('is the one generated from the catalogue and the check registry (regenerate: npx tsx conformance/requirements-table.ts --write)', () => {
    expect(withTable(readme, mustTable(catalogue))).toBe(readme);
  });

  it('has a row for every must id, each observed by a check or said not to be observable', () => {
    const table = mustTable(catalogue);
    for (const r of catalogue.all.filter((x) => x.level === 'must')) {
      const row = table.split('\n').find((l) => l.startsWith(`| ${r.id} |`));
      expect(row, r.id).toBeDefined();
      expect(row, r.id).not.toContain('not covered');
    }
  });

  it('says, for every observable must id, what its checks observe', () => {
    const missing = catalogue.all.filter((r) => r.level === 'must' && r.observable && !r.observes).map((r) => r.id);
    expect(missing).toEqual([]);
    expect(mustTable(catalogue)).toContain('| Observes |');
  });
});
