import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseCli } from './args.js';
import { baselineFileText, isExpired, loadBaseline, parseBaseline, settleBaseline, type Baseline } from './baseline.js';
import { resolveHarnessConfig } from './config.js';
import type { CheckResult, RequirementResult } from './events.js';

const ids = new Set(['R-1', 'R-2', 'R-3', 'R-4', 'P-1']);
const failure = (requirement: string, check: string) => ({
  requirement,
  check,
  why: `${requirement} broke\nsecond line`,
  evidence: [],
});
const req = (
  id: string,
  status: RequirementResult['status'],
  failures: [string, string][] = [],
  level: 'must' | 'policy' = 'must',
): RequirementResult => ({
  id,
  level,
  text: id,
  status,
  checks: ['a', 'b'],
  failures: failures.map(([r, c]) => failure(r, c)),
  reasons: status === 'skip' ? ['a: needs the clock'] : [],
});
const chk = (
  id: string,
  status: CheckResult['status'],
  requirements: string[],
  unobserved: string[] = [],
): CheckResult => ({
  id,
  title: id,
  requirements,
  status,
  failures: [],
  durationMs: 1,
  ...(unobserved.length ? { unobserved: unobserved.map((requirement) => ({ requirement, reason: 'x' })) } : {}),
});
const now = new Date('2026-11-26T12:00:00Z');
const base = (entries: Baseline['entries']): Baseline => ({ source: 'b.yaml', format: 'baseline', entries });

describe('baseline files', () => {
  it('reads entries and refuses what would accept nothing or something else silently', () => {
    const ok = parseBaseline(
      {
        version: 1,
        entries: [
          { requirement: 'R-1', check: 'a', reason: ' ticket 1 ', expires: '2027-01-31' },
          { requirement: 'R-2', reason: 'r' },
        ],
      },
      'b',
      ids,
    );
    expect(ok.entries).toEqual([
      { requirement: 'R-1', check: 'a', reason: 'ticket 1', expires: '2027-01-31' },
      { requirement: 'R-2', reason: 'r' },
    ]);
    const bad = (entries: unknown, msg: RegExp) => expect(() => parseBaseline({ entries }, 'b', ids)).toThrow(msg);
    bad([{ requirement: 'R-9', reason: 'r' }], /'R-9' is not in the requirements catalogue/);
    bad([{ requirement: 'R-1' }], /entry 1 \(R-1\): `reason`/);
    bad([{ requirement: 'R-1', reason: 'r', expires: 'next week' }], /`expires` must be a date/);
    bad([{ requirement: 'R-1', reason: 'r', expires: '2027-02-30T00:00:00Z' }], /`expires` must be a date/);
    bad([{ requirement: 'R-1', reason: 'r', expires: '2027-02-30' }], /`expires` must be a date/);
    bad([{ requirement: 'R-1', reason: 'r', expires: 20270101 }], /`expires` must be a date/);
    bad([{ requirement: 'R-1', reason: 'r', until: '2027-01-01' }], /unknown field 'until'/);
    bad(
      [
        { requirement: 'R-1', reason: 'r' },
        { requirement: 'R-1', reason: 's' },
      ],
      /R-1 is listed twice/,
    );
    bad('R-1', /`entries` must be a list/);
    expect(() => parseBaseline({ version: 2, entries: [] }, 'b', ids)).toThrow(/version 2 is not supported/);
    expect(() => parseBaseline({ entries: [], known: [] }, 'b', ids)).toThrow(/unknown field 'known'/);
  });

  it('loads YAML (an unquoted date included) and a previous report.json', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'conformance-baseline-'));
    const yaml = path.join(dir, 'baseline.yaml');
    writeFileSync(yaml, 'entries:\n  - requirement: R-1\n    reason: ticket 1\n    expires: 2027-01-31\n');
    expect(loadBaseline(yaml, ids).entries).toEqual([
      { requirement: 'R-1', reason: 'ticket 1', expires: '2027-01-31' },
    ]);
    const report = path.join(dir, 'report.json');
    const requirements = [
      req('R-1', 'fail', [['R-1', 'a']]),
      req('R-2', 'pass'),
      req('R-3', 'fail', [['R-3', 'b']]),
      req('P-1', 'fail', [['P-1', 'a']], 'policy'),
    ];
    const carried = {
      source: 'old.yaml',
      format: 'baseline',
      entries: [{ requirement: 'R-3', reason: 'ticket 3', expires: '2027-05-01', state: 'known' }],
      known: ['R-3'],
      expired: [],
      new: [],
    };
    writeFileSync(report, JSON.stringify({ startedAt: '2026-11-20T10:00:00.000Z', requirements, baseline: carried }));
    const b = loadBaseline(report, ids);
    expect(b.format).toBe('report');
    expect(b.entries).toEqual([
      { requirement: 'R-1', reason: `failed in ${report} (run of 2026-11-20T10:00:00.000Z)` },
      { requirement: 'R-3', reason: 'ticket 3', expires: '2027-05-01' },
    ]);
    writeFileSync(yaml, 'entries: [');
    expect(() => loadBaseline(yaml, ids)).toThrow(/baseline .*baseline\.yaml/);
  });

  it('an entry expires at the end of its day (UTC), or at its instant', () => {
    const e = (expires: string) => ({ requirement: 'R-1', reason: 'r', expires });
    expect(isExpired(e('2026-11-26'), now)).toBe(false);
    expect(isExpired(e('2026-11-26'), new Date('2026-11-27T00:00:00Z'))).toBe(true);
    expect(isExpired(e('2026-11-25'), now)).toBe(true);
    expect(isExpired(e('2026-11-26T11:59:59Z'), now)).toBe(true);
    expect(isExpired({ requirement: 'R-1', reason: 'r' }, now)).toBe(false);
  });
});

describe('settling a run against a baseline', () => {
  it('known, new, expired, fixed and unchecked', () => {
    const requirements = [
      req('R-1', 'fail', [['R-1', 'a']]), // listed → known
      req('R-2', 'fail', [['R-2', 'a']]), // not listed → new
      req('R-3', 'fail', [['R-3', 'b']]), // listed, expired → expired
      req('R-4', 'pass'), // listed, passes → fixed
      req('P-1', 'skip', [], 'policy'), // listed, not observed → unchecked
    ];
    const b = base([
      { requirement: 'R-1', reason: 'one' },
      { requirement: 'R-3', reason: 'three', expires: '2026-01-01' },
      { requirement: 'R-4', reason: 'four', expires: '2020-01-01' },
      { requirement: 'P-1', reason: 'p' },
    ]);
    const o = settleBaseline(b, requirements, [], now);
    expect(o).toMatchObject({ known: ['R-1'], new: ['R-2'], expired: ['R-3'] });
    expect(o.entries.map((e) => `${e.requirement}:${e.state}`)).toEqual([
      'R-1:known',
      'R-3:expired',
      'R-4:fixed',
      'P-1:unchecked',
    ]);
  });

  it("a check-scoped entry accepts only that check's failures, and is fixed only when that check observed the requirement", () => {
    const twoChecks = [
      req('R-1', 'fail', [
        ['R-1', 'a'],
        ['R-1', 'b'],
      ]),
    ];
    expect(settleBaseline(base([{ requirement: 'R-1', check: 'a', reason: 'r' }]), twoChecks, [], now).new).toEqual([
      'R-1',
    ]);
    expect(
      settleBaseline(
        base([
          { requirement: 'R-1', check: 'a', reason: 'r' },
          { requirement: 'R-1', check: 'b', reason: 's' },
        ]),
        twoChecks,
        [],
        now,
      ).known,
    ).toEqual(['R-1']);
    // the failure moved from check a to check b: a's entry is fixed only when a observed R-1 this run
    const moved = [req('R-1', 'fail', [['R-1', 'b']])];
    const entry = base([{ requirement: 'R-1', check: 'a', reason: 'r' }]);
    expect(settleBaseline(entry, moved, [chk('a', 'pass', ['R-1'])], now).entries[0].state).toBe('fixed');
    expect(settleBaseline(entry, moved, [chk('a', 'pass', ['R-1'], ['R-1'])], now).entries[0].state).toBe('unchecked');
    expect(settleBaseline(entry, moved, [chk('a', 'skip', ['R-1'])], now).entries[0].state).toBe('unchecked');
    expect(settleBaseline(entry, moved, [], now).new).toEqual(['R-1']);
  });

  it('a live entry and an expired one for the same requirement: the live one decides', () => {
    const rs = [req('R-1', 'fail', [['R-1', 'a']])];
    const o = settleBaseline(
      base([
        { requirement: 'R-1', reason: 'old', expires: '2020-01-01', check: 'a' },
        { requirement: 'R-1', reason: 'new' },
      ]),
      rs,
      [],
      now,
    );
    expect(o.known).toEqual(['R-1']);
    // only expired entries: the failure fails again
    expect(
      settleBaseline(base([{ requirement: 'R-1', reason: 'old', expires: '2020-01-01' }]), rs, [], now).expired,
    ).toEqual(['R-1']);
  });
});

describe('--write-baseline', () => {
  it('lists every must failure once, keeps the reasons and expiries of entries still in use, and reads back', () => {
    const requirements = [
      req('R-1', 'fail', [
        ['R-1', 'a'],
        ['R-1', 'b'],
      ]),
      req('R-2', 'fail', [['R-2', 'a']]),
      req('R-3', 'error'),
      req('R-4', 'pass'),
      req('P-1', 'fail', [['P-1', 'a']], 'policy'),
    ];
    const previous = settleBaseline(
      base([
        { requirement: 'R-2', reason: 'ticket 2', expires: '2027-01-01' },
        { requirement: 'R-4', reason: 'gone' },
      ]),
      requirements,
      [],
      now,
    );
    const text = baselineFileText({
      requirements,
      startedAt: now.toISOString(),
      target: 'http://t',
      baseline: previous,
    });
    expect(text).toMatch(/^# Conformance baseline: known failures of http:\/\/t/);
    const back = parseBaseline(YAML.parse(text), 'written', ids);
    expect(back.entries).toEqual([
      { requirement: 'R-1', reason: 'failing since 2026-11-26 (found by a, b): R-1 broke' },
      { requirement: 'R-2', reason: 'ticket 2', expires: '2027-01-01' },
    ]);
    // the written file accepts exactly this run's failures
    const again = settleBaseline(back, requirements, [], now);
    expect(again.known).toEqual(['R-1', 'R-2']);
    expect(again.new).toEqual([]);
  });
});

describe('options', () => {
  it('--baseline and --write-baseline reach the resolved config; a baseline naming an id the catalogue lacks stops the run before it starts', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'conformance-baseline-opts-'));
    const file = path.join(dir, 'known.yaml');
    writeFileSync(file, 'entries:\n  - requirement: SCR-IDEMP-3\n    reason: ticket 1\n');
    const raw = parseCli(['--target', 'http://h', '--baseline', file, '--write-baseline', path.join(dir, 'next.yaml')]);
    const cfg = resolveHarnessConfig(raw);
    expect(cfg.baseline).toEqual({
      source: file,
      format: 'baseline',
      entries: [{ requirement: 'SCR-IDEMP-3', reason: 'ticket 1' }],
    });
    expect(cfg.writeBaseline).toBe(path.join(dir, 'next.yaml'));
    expect(
      resolveHarnessConfig({ target: 'http://h', baseline: { entries: [{ requirement: 'JOB-RATE-1', reason: 'r' }] } })
        .baseline?.source,
    ).toBe('options');
    writeFileSync(file, 'entries:\n  - requirement: SCR-IDEMP-33\n    reason: typo\n');
    expect(() => resolveHarnessConfig(raw)).toThrow(
      `baseline ${file}: entry 1: requirement 'SCR-IDEMP-33' is not in the requirements catalogue`,
    );
    expect(() => resolveHarnessConfig({ target: 'http://h', baseline: path.join(dir, 'missing.yaml') })).toThrow(
      /baseline .*missing\.yaml: ENOENT/,
    );
  });
});
