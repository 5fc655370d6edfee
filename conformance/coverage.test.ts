import { describe, expect, it } from 'vitest';
import type { Capabilities, Check } from './check.js';
import { CAPABILITY_REASONS } from './check.js';
import { coverageIndex, coverageLine } from './coverage.js';
import type { CheckResult } from './events.js';
import type { Catalogue, Requirement } from './requirements.js';
import { aggregate } from './runner.js';

const req = (id: string, level: 'must' | 'policy' = 'must', observable = true): Requirement => ({
  id,
  level,
  text: id,
  observable,
});
const catalogue = (rs: Requirement[]): Catalogue => ({ file: 'x', all: rs, byId: new Map(rs.map((r) => [r.id, r])) });
const check = (id: string, requirements: string[], needs: Check['appliesTo']['needs'] = []): Check => ({
  id,
  title: id,
  requirements,
  appliesTo: { surface: 'screening', needs },
  run: async () => {},
});
const caps: Capabilities = {
  freshTenants: false,
  creditControl: false,
  clock: false,
  reviewDecisions: false,
  webhooks: false,
  noScopeKey: true,
  anonMcp: true,
  negativeInput: true,
  thisSandbox: false,
};
const result = (c: Check, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
  id: c.id,
  title: c.id,
  requirements: c.requirements,
  status,
  failures: [],
  durationMs: 1,
  ...extra,
});

describe('coverage index', () => {
  const observedOk = check('ok', ['R-1', 'R-2']);
  const failing = check('bad', ['R-3']);
  const hooks = check('hooks', ['R-4'], ['webhooks']);
  const admin = check('admin', ['R-5', 'R-6'], ['freshTenants', 'clock']);
  const keysOnly = check('keys', ['R-6']);
  const flagged = check('rate', ['R-7']);
  const boom = check('boom', ['R-8']);
  const other = check('other', ['R-9']);
  const checks = [observedOk, failing, hooks, admin, keysOnly, flagged, boom, other];
  const cat = catalogue([
    ...['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6', 'R-7', 'R-8', 'R-9', 'R-10'].map((id) => req(id)),
    req('R-11', 'must', false),
    req('P-1', 'policy'),
  ]);
  const results = [
    result(observedOk, 'pass', { unobserved: [{ requirement: 'R-2', reason: 'could not read the tier' }] }),
    result(failing, 'fail', { failures: [{ requirement: 'R-3', check: 'bad', why: 'x', evidence: [] }] }),
    result(hooks, 'skip', { skipReason: CAPABILITY_REASONS.webhooks }),
    result(admin, 'skip', { skipReason: 'needs fresh tenants' }),
    result(keysOnly, 'skip', { skipReason: 'the profile has no keys.screeningSpent' }),
    result(flagged, 'skip', { skipReason: "--no-rate-windows: a fixed key's rate window is not spent" }),
    result(boom, 'error', { error: 'TypeError: x' }),
  ];
  const requirements = aggregate(cat, checks, results, [
    'R-1',
    'R-2',
    'R-3',
    'R-4',
    'R-5',
    'R-6',
    'R-7',
    'R-8',
    'R-10',
    'R-11',
  ]);

  it('counts what was observed (passed or failed) against every must requirement, and the score against what was observed', () => {
    const c = coverageIndex(requirements, checks, caps);
    expect(c).toMatchObject({ must: 11, observed: 2, passed: 1, index: 2 / 11, score: 0.5 });
    expect(coverageLine(c)).toBe(
      'coverage index 2/11 must requirements observable with this profile and flags (18.2%); score 1/2 observed passed (50.0%)',
    );
  });

  it('gives each unobserved must requirement its cause and reasons', () => {
    const by = Object.fromEntries(coverageIndex(requirements, checks, caps).unobserved.map((u) => [u.id, u]));
    expect(Object.keys(by).sort()).toEqual(['R-10', 'R-11', 'R-2', 'R-4', 'R-5', 'R-6', 'R-7', 'R-8', 'R-9']);
    expect(by['R-2']).toMatchObject({ cause: 'skipped', reasons: ['ok: could not read the tier'] });
    expect(by['R-4']).toMatchObject({
      cause: 'capability',
      missing: ['webhooks'],
      reasons: [CAPABILITY_REASONS.webhooks],
    });
    expect(by['R-5']).toMatchObject({ cause: 'capability', missing: ['freshTenants', 'clock'] });
    // one covering check needs the control plane, the other ran keys only and skipped for a missing key
    expect(by['R-6']).toMatchObject({ cause: 'skipped' });
    expect(by['R-6'].reasons.join()).toContain('keys.screeningSpent');
    expect(by['R-7']).toMatchObject({
      cause: 'skipped',
      reasons: ["rate: --no-rate-windows: a fixed key's rate window is not spent"],
    });
    expect(by['R-8']).toMatchObject({ cause: 'error', reasons: ['boom: TypeError: x'] });
    expect(by['R-9']).toMatchObject({ cause: 'not-selected', reasons: ['not selected by --only'] });
    expect(by['R-10'].cause).toBe('not-covered');
    expect(by['R-11'].cause).toBe('not-observable');
    expect(by['P-1']).toBeUndefined();
  });

  it('with every capability, a needs-only skip cannot happen and nothing is blamed on one', () => {
    const all = Object.fromEntries(Object.keys(caps).map((k) => [k, true])) as unknown as Capabilities;
    expect(coverageIndex(requirements, checks, all).unobserved.some((u) => u.cause === 'capability')).toBe(false);
  });
});
