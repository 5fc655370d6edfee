import { describe, expect, it } from 'vitest';
import type { Check } from './check.js';
import { resolveHarnessConfig } from './config.js';
import type { CheckResult, HarnessEvent } from './events.js';
import { parseReplay, propertySeed } from './property.js';
import type { Catalogue, Requirement } from './requirements.js';
import { aggregate, selectChecks } from './runner.js';
import { asyncWait } from './waits.js';

const req = (id: string, level: 'must' | 'policy' = 'must', observable = true): Requirement => ({
  id,
  level,
  text: id,
  observable,
});
const catalogue = (rs: Requirement[]): Catalogue => ({ file: 'x', all: rs, byId: new Map(rs.map((r) => [r.id, r])) });
const check = (id: string, requirements: string[], late = false): Check => ({
  id,
  title: id,
  requirements,
  appliesTo: { surface: 'screening' },
  late,
  run: async () => {},
});
const result = (c: Check, status: CheckResult['status'], failing: string[] = []): CheckResult => ({
  id: c.id,
  title: c.title,
  requirements: c.requirements,
  status,
  failures: failing.map((requirement) => ({ requirement, check: c.id, why: 'broken', evidence: [] })),
  ...(status === 'skip' ? { skipReason: 'needs the clock' } : {}),
  ...(status === 'error' ? { error: 'boom' } : {}),
  durationMs: 1,
});

describe('aggregate', () => {
  it('gives every catalogue id one status from the checks that cover it', () => {
    const a = check('a', ['R-1', 'R-2']);
    const b = check('b', ['R-2', 'R-3']);
    const s = check('s', ['R-4']);
    const e = check('e', ['R-6']);
    const cat = catalogue([
      req('R-1'),
      req('R-2'),
      req('R-3'),
      req('R-4'),
      req('R-5'),
      req('R-6'),
      req('R-7', 'must', false),
      req('P-1', 'policy'),
    ]);
    const rs = aggregate(
      cat,
      [a, b, s, e],
      [result(a, 'fail', ['R-1']), result(b, 'pass'), result(s, 'skip'), result(e, 'error')],
      [],
    );
    const by = Object.fromEntries(rs.map((r) => [r.id, r.status]));
    expect(by).toEqual({
      'R-1': 'fail',
      'R-2': 'pass',
      'R-3': 'pass',
      'R-4': 'skip',
      'R-5': 'not-covered',
      'R-6': 'error',
      'R-7': 'not-observable',
      'P-1': 'not-covered',
    });
    expect(rs.find((r) => r.id === 'R-4')!.reasons[0]).toContain('needs the clock');
  });

  it('a failure found by another check (the response monitor) still fails the requirement', () => {
    const a = check('a', ['R-1']);
    const rs = aggregate(catalogue([req('R-1'), req('R-2')]), [a], [result(a, 'fail', ['R-2'])], []);
    expect(rs.find((r) => r.id === 'R-2')!.status).toBe('fail');
    expect(rs.find((r) => r.id === 'R-1')!.status).toBe('pass');
  });

  it('marks covered requirements outside --only as not run', () => {
    const a = check('a', ['R-1']);
    const rs = aggregate(catalogue([req('R-1')]), [a], [], ['X-']);
    expect(rs[0].status).toBe('not-run');
    expect(rs[0].reasons).toContain('not selected by --only');
  });
});

describe('selectChecks', () => {
  const cfg = (only: string[]) => resolveHarnessConfig({ target: 'http://127.0.0.1:1', only, seed: 1 });
  const checks = [check('late.one', ['R-9'], true), check('scr.a', ['SCR-IDEMP-1']), check('scr.b', ['SCR-AUDIT-2'])];

  it('selects by requirement or check id prefix and runs late checks last', () => {
    expect(selectChecks(checks, cfg([]), null).map((c) => c.id)).toEqual(['scr.a', 'scr.b', 'late.one']);
    expect(selectChecks(checks, cfg(['SCR-IDEMP']), null).map((c) => c.id)).toEqual(['scr.a']);
    expect(selectChecks(checks, cfg(['scr.b']), null).map((c) => c.id)).toEqual(['scr.b']);
  });

  it('a replay runs only the named check', () => {
    expect(
      selectChecks(checks, cfg([]), { kind: 'path', check: 'scr.b', property: 'p', path: '1:2' }).map((c) => c.id),
    ).toEqual(['scr.b']);
    expect(() => selectChecks(checks, cfg([]), { kind: 'path', check: 'nope', property: 'p', path: '1' })).toThrow(
      /not registered/,
    );
  });
});

describe('replay ids and seeds', () => {
  it('parses <check>/<property>@<path>', () => {
    expect(parseReplay('screening.idempotency.replay/replays@3:0:1')).toEqual({
      check: 'screening.idempotency.replay',
      property: 'replays',
      path: '3:0:1',
    });
    expect(parseReplay('fixtures/regressions/x.json')).toBeNull();
  });

  it('derives a stable seed per property, different between properties', () => {
    expect(propertySeed(42, 'a', 'p')).toBe(propertySeed(42, 'a', 'p'));
    expect(propertySeed(42, 'a', 'p')).not.toBe(propertySeed(42, 'a', 'q'));
    expect(propertySeed(42, 'a', 'p')).not.toBe(propertySeed(43, 'a', 'p'));
  });
});

describe('internal errors', () => {
  it('a check that throws is a harness error naming the check; the reports are still written', async () => {
    const { mkdtempSync, existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { runConformance } = await import('./index.js');
    const reportDir = mkdtempSync(path.join(tmpdir(), 'conformance-err-'));
    const boom: Check = {
      id: 'x.boom',
      title: 'throws',
      requirements: ['SCR-IDEMP-1'],
      appliesTo: { surface: 'screening' },
      run: async () => void (undefined as any).length,
    };
    const r = await runConformance(
      { target: 'http://127.0.0.1:1', seed: 1, reportDir, progress: false, saveRegressions: false },
      { checks: [boom] },
    );
    expect(r.harnessErrors).toHaveLength(1);
    expect(r.harnessErrors[0]).toMatch(/^check x\.boom: TypeError/);
    expect(r.ok).toBe(false);
    for (const f of ['junit.xml', 'report.json', 'report.html']) expect(existsSync(path.join(reportDir, f))).toBe(true);
  });
});

describe('requirements a check could not observe', () => {
  it('are skipped with the reason, never passed, while the check passes its other requirements', () => {
    const a = check('a', ['R-1', 'R-2']);
    const passed: CheckResult = {
      ...result(a, 'pass'),
      unobserved: [{ requirement: 'R-2', reason: 'precondition did not hold' }],
    };
    const rs = aggregate(catalogue([req('R-1'), req('R-2')]), [a], [passed], []);
    expect(rs.map((r) => r.status)).toEqual(['pass', 'skip']);
    expect(rs[1].reasons[0]).toContain('precondition did not hold');
  });
});

describe('checks side by side', () => {
  it('waits of checks sharing nothing overlap, a shared key is taken in turn, results come in registry order', async () => {
    const { runConformance } = await import('./index.js');
    const log: string[] = [];
    const waiting = (id: string, uses: Check['uses'], ms: number): Check => ({
      ...check(id, ['SCR-IDEMP-1']),
      uses,
      run: async (ctx) => {
        log.push(`+${id}`);
        await asyncWait(ctx, () => new Promise((r) => setTimeout(r, ms)));
        log.push(`-${id}`);
      },
    });
    const busy = (id: string, uses: Check['uses'], ms: number): Check => ({
      ...check(id, ['SCR-IDEMP-2']),
      uses,
      run: async () => {
        log.push(`+${id}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`-${id}`);
      },
    });
    const checks = [
      waiting('w.a', { keys: ['pro'] }, 600),
      waiting('w.b', { keys: ['starter'] }, 600),
      busy('b.pro', { keys: ['pro'] }, 100),
      busy('b.pro2', { keys: ['pro'] }, 100),
    ];
    const ends: string[] = [];
    let t0 = 0;
    let ms = 0;
    const reporter = (e: HarnessEvent) => {
      if (e.type === 'check-start' && e.index === 0) t0 = performance.now();
      if (e.type === 'check-end') {
        ends.push(`${e.index}:${e.result.id}`);
        ms = performance.now() - t0;
      }
    };
    const r = await runConformance(
      {
        target: 'http://127.0.0.1:1',
        keys: { pro: 'k1', starter: 'k2' },
        seed: 1,
        reportDir: null,
        progress: false,
        saveRegressions: false,
      },
      { checks, reporters: [reporter] },
    );
    expect(r.harnessErrors).toEqual([]);
    // two waits of 600 ms side by side, the pro checks inside the pro wait: well under the 1400 ms in turn
    expect(ms).toBeLessThan(1250);
    // b.pro ran while w.a waited (w.a lent its key), and the two pro checks took it one after the other
    expect(log.indexOf('+b.pro')).toBeLessThan(log.indexOf('-w.a'));
    expect(log.indexOf('+b.pro2')).toBeGreaterThan(log.indexOf('-b.pro'));
    expect(r.checks.map((c) => c.id)).toEqual(['w.a', 'w.b', 'b.pro', 'b.pro2', 'contract.responses']);
    // progress counts finished checks, in the order they finished
    expect(ends.map((e) => e.split(':')[0])).toEqual(['0', '1', '2', '3']);
    expect(
      ends
        .slice(0, 2)
        .map((e) => e.split(':')[1])
        .sort(),
    ).toEqual(['b.pro', 'b.pro2']);
  });
});
