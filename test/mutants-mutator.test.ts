// The mutator of `npm run mutants` (mutants/mutator.ts): on a small source it lists exactly the expected
// mutants (operators, conditions, literals, methods), leaves imports, types, element-access names and
// everything a planted violation switch owns alone, keys each mutant independently of its position, and
// applying a mutant changes exactly its span. On the real alternate deployment every key is unique.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyMutant, findSwitchFlags, mutantDiff, mutate } from '../mutants/mutator.js';
import { listMutants, loadReviewed, ruleFiles, seededSample, switchNames, TRANSPORT_ERROR } from '../mutants/run.js';

const SRC = `import { x } from './x.js';
type Tier = 'Free' | 'Pro';
export function f(a: number, t: Tier, v: { on(n: string): boolean }, o: { flag: boolean }) {
  if (a >= 10 && !v.on('planted')) return 'big';
  const n = v.on('planted') ? a * 2 : a - 1;
  if (o.flag) log['x'] = n;
  return t === 'Free' || xs.filter(Boolean).some((y) => y > n);
}
export const opts = (v: { on(n: string): boolean }) => ({ flag: v.on('planted') });
`;
const switches = { switchNames: new Set(['planted']), switchFlags: findSwitchFlags(SRC, new Set(['planted'])) };
const triples = (src: string) => mutate('f.ts', src, switches).map((m) => [m.operator, m.original, m.replacement]);

describe('the mutator', () => {
  it('lists the expected mutants of a small source, and none in imports, types, names or switch-only code', () => {
    expect(switches.switchFlags).toEqual(new Set(['flag']));
    expect(triples(SRC)).toEqual([
      ['condition', "a >= 10 && !v.on('planted')", 'true'],
      ['condition', "a >= 10 && !v.on('planted')", 'false'],
      ['boundary', '>=', '>'],
      ['number', '10', '11'],
      ['logical', '&&', '||'],
      ['string', "'big'", "''"],
      // `a * 2` runs only with the switch on, `o.flag`'s branch likewise; `v.on('planted')` itself is never mutated
      ['arithmetic', '-', '+'],
      ['number', '1', '2'],
      ['equality', '===', '!=='],
      ['string', "'Free'", "''"],
      ['logical', '||', '&&'],
      ['method', 'xs.filter(Boolean)', 'xs'],
      ['method', 'some', 'every'],
      ['boundary', '>', '>='],
    ]);
  });

  it('mutates what switches do not own: without the switch names, the switch-only code is mutated too', () => {
    const all = mutate('f.ts', SRC).map((m) => m.original);
    expect(all).toContain('*');
    expect(all).toContain("'planted'");
  });

  it('covers negation, update, boolean, block and the other method swaps', () => {
    const src = `function g(xs: number[], s: string) {\n  let i = 0;\n  if (!s.startsWith('a')) { i++; }\n  const ok = true;\n  return Math.min(i, xs.length) + (ok ? 1 : 0);\n}\nfunction h() { console.log('x'); run(); }\n`;
    const t = mutate('g.ts', src).map((m) => `${m.operator}:${m.original}→${m.replacement}`);
    for (const want of [
      "negation:!s.startsWith('a')→s.startsWith('a')",
      'method:startsWith→endsWith',
      'update:i++→i--',
      'boolean:true→false',
      'method:min→max',
      'block:{ i++; }→{}',
      "block:{ console.log('x'); run(); }→{}",
    ])
      expect(t).toContain(want);
    // a console call is not code under test
    expect(t.some((x) => x.includes("'x'→"))).toBe(false);
  });

  it('keys a mutant by its statement and change, not its position; identical changes in one statement get distinct keys', () => {
    const keys = mutate('f.ts', SRC, switches).map((m) => m.key);
    const moved = mutate('f.ts', `// a comment\n\n${SRC}`, switches).map((m) => m.key);
    expect(moved).toEqual(keys);
    const twice = mutate('f.ts', 'const a = b + 1 + 1;\n');
    expect(twice.filter((m) => m.operator === 'number')).toHaveLength(2);
    expect(new Set(twice.map((m) => m.key)).size).toBe(twice.length);
  });

  it('applies a mutant to exactly its span and shows it as a diff', () => {
    const m = mutate('f.ts', SRC, switches).find((x) => x.operator === 'boundary' && x.original === '>=')!;
    const out = applyMutant(SRC, m);
    expect(out).toBe(SRC.replace('a >= 10', 'a > 10'));
    expect(mutantDiff(SRC, m)).toBe(
      `--- f.ts:4\n+++ f.ts:4 (boundary)\n-   if (a >= 10 && !v.on('planted')) return 'big';\n+   if (a > 10 && !v.on('planted')) return 'big';`,
    );
  });

  it('lists the rule files of the alternate deployment with unique keys, and samples them by seed', () => {
    const files = ruleFiles();
    expect(files).toContain('test/alt-deployment/screening.ts');
    for (const f of ['index.ts', 'violations.ts', 'serve.ts', 'profile.ts', 'test-support.ts', 'alt.test.ts'])
      expect(files).not.toContain(`test/alt-deployment/${f}`);
    expect(switchNames().has('replay-charges')).toBe(true);
    const { mutants } = listMutants(files);
    expect(mutants.length).toBeGreaterThan(500);
    expect(new Set(mutants.map((m) => m.key)).size).toBe(mutants.length);
    // no mutant of a switch call or of the switch names
    const names = switchNames();
    expect(
      mutants.filter((m) => /^[\w.]+\.on\('[^']*'\)$/.test(m.original) || names.has(m.original.slice(1, -1))),
    ).toEqual([]);
    const a = seededSample(mutants, 10, 7).map((m) => m.key);
    expect(seededSample(mutants, 10, 7).map((m) => m.key)).toEqual(a);
    expect(seededSample(mutants, 10, 8).map((m) => m.key)).not.toEqual(a);
    // every mutated copy still parses as the same kind of file
    const text = readFileSync(path.resolve('test/alt-deployment/jobs-domain.ts'), 'utf8');
    expect(
      applyMutant(
        text,
        mutants.find((m) => m.file.endsWith('jobs-domain.ts'))!,
      ),
    ).not.toBe(text);
  });

  it("every reviewed survivor of mutants/survivors.yaml still names a mutant of today's source, in its file", () => {
    // a key hashes the statement's text: an edit or a reformat of that statement leaves the entry naming
    // nothing, and the mutant it reviewed would be drawn again as unreviewed
    const reviewed = loadReviewed();
    expect(reviewed.length).toBeGreaterThan(0);
    const fileOf = new Map(listMutants(ruleFiles()).mutants.map((m) => [m.key, m.file]));
    const stale = reviewed.filter((r) => fileOf.get(r.key) !== r.file).map((r) => `${r.key} (${r.file})`);
    expect(
      stale,
      'reviewed keys that name no mutant of their file: find the same change in `npm run mutants -- --list`',
    ).toEqual([]);
    expect(new Set(reviewed.map((r) => r.key)).size).toBe(reviewed.length);
  });

  it('tells a broken connection from an answer (such a kill is run again)', () => {
    expect(
      TRANSPORT_ERROR.test(
        'GET /me: expected 200, got TypeError: fetch failed (ECONNRESET) (GET /api/v1/me -> TypeError: fetch failed (ECONNRESET))',
      ),
    ).toBe(true);
    expect(
      TRANSPORT_ERROR.test('GET /usage: expected 200, got 500 (GET /api/screening/v1/usage -> 500 internal)'),
    ).toBe(false);
    expect(TRANSPORT_ERROR.test('a page of limit 20 holds 21 jobs')).toBe(false);
  });
});
