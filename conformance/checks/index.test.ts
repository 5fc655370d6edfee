import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../requirements.js';
import { MONITOR_CHECK } from '../runner.js';
import { allChecks } from './index.js';

const root = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

describe('the check registry', () => {
  const catalogue = loadCatalogue(path.resolve(root, '../contracts/requirements.yaml'));

  it('every check has a unique id and names only requirement ids of the catalogue', () => {
    const ids = allChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const unknown = [...allChecks, MONITOR_CHECK].flatMap((c) =>
      c.requirements.filter((r) => !catalogue.byId.has(r)).map((r) => `${c.id}: ${r}`),
    );
    expect(unknown).toEqual([]);
    for (const c of allChecks) expect(c.requirements.length, c.id).toBeGreaterThan(0);
  });

  it('covers every observable must requirement', () => {
    const covered = new Set([...allChecks, MONITOR_CHECK].flatMap((c) => c.requirements));
    const uncovered = catalogue.all
      .filter((r) => r.level === 'must' && r.observable && !covered.has(r.id))
      .map((r) => r.id);
    // MCP-ANON-4 (read-only) is observed by calling every anonymous tool and reading the keyed side again
    expect(uncovered).toEqual([]);
  });

  it('the harness takes nothing from the service code but the contract loader', () => {
    const offending = sources(root).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)]
        .map((m) => path.resolve(path.dirname(file), m[1]))
        .filter(
          (target) =>
            target.startsWith(path.resolve(root, '../src')) &&
            target !== path.resolve(root, '../src/contract/index.js'),
        )
        .map((target) => `${path.relative(root, file)} → ${path.relative(root, target)}`),
    );
    expect(offending).toEqual([]);
  });
});
