import { describe, expect, it } from 'vitest';
import type { RunResult } from '../events.js';
import { summary } from './console.js';
import { htmlReport } from './html.js';
import { jsonReport } from './json.js';
import { junitReport } from './junit.js';

const tally = { pass: 0, fail: 0, skip: 0, error: 0, notCovered: 0, notObservable: 0, notRun: 0 };
const run: RunResult = {
  ok: false,
  target: 'http://127.0.0.1:1',
  seed: 42,
  runs: 5,
  cases: 17,
  only: [],
  startedAt: '2026-11-22T00:00:00.000Z',
  durationMs: 1234,
  capabilities: {
    freshTenants: true,
    creditControl: true,
    clock: false,
    reviewDecisions: false,
    webhooks: false,
    noScopeKey: false,
    anonMcp: false,
    negativeInput: true,
    thisSandbox: true,
  },
  notes: [],
  checks: [],
  requirements: [
    {
      id: 'SCR-IDEMP-3',
      level: 'must',
      text: 'A replay charges no credit',
      status: 'fail',
      checks: ['screening.idempotency.replay'],
      reasons: [],
      failures: [
        {
          requirement: 'SCR-IDEMP-3',
          check: 'screening.idempotency.replay',
          why: 'a replay changed creditsRemaining 5 → 4 <&>',
          evidence: [
            {
              request: {
                method: 'POST',
                url: 'http://127.0.0.1:1/api/screening/v1/screen',
                headers: {},
                body: '{"a":1}',
              },
              response: { status: 200, headers: {}, body: '{}', json: {} },
              durationMs: 3,
            },
          ],
          counterexample: {
            property: 'screening.idempotency.replay/replays',
            value: { replays: 1 },
            seed: 9,
            path: '0:1',
          },
          replay:
            'npm run conformance -- --target http://127.0.0.1:1 --only SCR-IDEMP-3 --seed 42 --replay screening.idempotency.replay/replays@0:1',
        },
      ],
    },
    {
      id: 'SCR-AUDIT-2',
      level: 'must',
      text: 'limit 1..500',
      status: 'pass',
      checks: ['a'],
      reasons: [],
      failures: [],
    },
    {
      id: 'SCR-HOOK-1',
      level: 'must',
      text: 'scored delivery',
      status: 'skip',
      checks: ['w'],
      reasons: ['w: needs a webhook receiver'],
      failures: [],
    },
    { id: 'SCR-VER-2', level: 'must', text: 'version', status: 'not-covered', checks: [], reasons: [], failures: [] },
    {
      id: 'POL-IDEMP-2',
      level: 'policy',
      text: 'header',
      status: 'fail',
      checks: ['r'],
      reasons: [],
      failures: [{ requirement: 'POL-IDEMP-2', check: 'r', why: 'no header', evidence: [] }],
    },
  ],
  counts: { must: { ...tally, pass: 1, fail: 1, skip: 1, notCovered: 1 }, policy: { ...tally, fail: 1 } },
  coverage: {
    must: 4,
    observed: 2,
    index: 0.5,
    passed: 1,
    score: 0.5,
    unobserved: [
      { id: 'SCR-HOOK-1', cause: 'capability', missing: ['webhooks'], reasons: ['needs a webhook receiver'] },
      { id: 'SCR-VER-2', cause: 'not-covered', reasons: ['no check verifies it'] },
    ],
  },
  unknownRequirementIds: [],
  regressions: [],
  command: 'npm run conformance -- --target http://127.0.0.1:1',
  harnessErrors: [],
};

const withBaseline = (state: 'known' | 'expired'): RunResult => ({
  ...run,
  ok: state === 'known',
  baseline: {
    source: 'baseline.yaml',
    format: 'baseline',
    entries: [
      {
        requirement: 'SCR-IDEMP-3',
        reason: 'ticket 7',
        ...(state === 'expired' ? { expires: '2020-01-01' } : {}),
        state,
      },
      { requirement: 'SCR-AUDIT-2', reason: 'ticket 8', state: 'fixed' },
    ],
    known: state === 'known' ? ['SCR-IDEMP-3'] : [],
    expired: state === 'expired' ? ['SCR-IDEMP-3'] : [],
    new: [],
  },
});

describe('reporters', () => {
  it('JUnit: one testcase per requirement; must failures fail, policy deviations and skips do not', () => {
    const xml = junitReport(run);
    expect(xml.match(/<testcase /g)).toHaveLength(5);
    expect(xml).toContain('<testsuite name="must" tests="4" failures="1" errors="0" skipped="2"');
    expect(xml).toContain('<testsuite name="policy" tests="1" failures="0"');
    expect(xml).toContain('<failure message="a replay changed creditsRemaining 5 → 4 &lt;&amp;&gt;"');
    expect(xml).toContain('--replay screening.idempotency.replay/replays@0:1');
    expect(xml).toContain('<skipped message="w: needs a webhook receiver"/>');
    expect(xml).toContain('<skipped message="not covered by any check"/>');
    expect(xml).toContain('policy deviation (does not fail the run): no header');
    expect(xml).not.toMatch(/<[^>]*<&>/);
  });

  it('HTML: every requirement in the table, failures with counterexample, exchange and replay command, escaped', () => {
    const html = htmlReport(run);
    for (const r of run.requirements) expect(html).toContain(`<code>${r.id}</code>`);
    expect(html).toContain('&lt;&amp;&gt;');
    expect(html).toContain('--replay screening.idempotency.replay/replays@0:1');
    expect(html).toContain('&quot;replays&quot;: 1');
    expect(html).toContain('POST http://127.0.0.1:1/api/screening/v1/screen');
    expect(html).toContain('deviates');
    expect(html).toContain('verdict ko">FAIL');
  });

  it('a minimal counterexample that is undefined (or a BigInt) is rendered, not a crash', () => {
    const f = run.requirements[0].failures[0];
    const odd: RunResult = {
      ...run,
      requirements: [
        {
          ...run.requirements[0],
          failures: [
            { ...f, counterexample: { ...f.counterexample!, value: undefined } },
            { ...f, counterexample: { ...f.counterexample!, value: { n: 10n } } },
          ],
        },
      ],
    };
    expect(junitReport(odd)).toContain('(undefined)');
    expect(htmlReport(odd)).toContain('(undefined)');
    expect(htmlReport(odd)).toContain('10n');
    expect(JSON.parse(jsonReport(odd)).requirements[0].failures[1].counterexample.value).toEqual({ n: '10n' });
  });

  it('the summary lists failing requirements with their replay command', () => {
    const s = summary(run);
    expect(s).toContain('FAIL SCR-IDEMP-3');
    expect(s).toContain('replay: npm run conformance');
    expect(s).toContain('dev. POL-IDEMP-2');
  });

  it('every report states the coverage index beside the score, and what was not observed and why', () => {
    expect(summary(run)).toContain(
      'coverage index 2/4 must requirements observable with this profile and flags (50.0%); score 1/2 observed passed (50.0%)',
    );
    expect(summary(run)).toContain('not observed, a capability this profile lacks (1): SCR-HOOK-1');
    expect(summary(run)).toContain('not observed, not covered by any check (1): SCR-VER-2');
    const xml = junitReport(run);
    expect(xml).toContain('<property name="coverage.index" value="0.5000"/>');
    expect(xml).toContain('<property name="coverage.score" value="0.5000"/>');
    expect(xml).toContain('<property name="coverage.unobserved.capability" value="SCR-HOOK-1"/>');
    const html = htmlReport(run);
    expect(html).toContain('<b>2 of 4</b> must requirements observable');
    expect(html).toContain('<b>1 of 2</b> observed must requirements passed');
    expect(html).toMatch(
      /<td><code>SCR-HOOK-1<\/code><\/td><td>a capability this profile lacks<\/td><td>needs a webhook receiver<\/td>/,
    );
    expect(JSON.parse(jsonReport(run)).coverage.unobserved).toHaveLength(2);
  });

  it('a failure the baseline accepts is reported as known, not as a JUnit failure; an expired one fails', () => {
    const known = withBaseline('known');
    const xml = junitReport(known);
    expect(xml).toContain('<testsuite name="must" tests="4" failures="0"');
    expect(xml).toContain('<skipped message="known failure (baseline: ticket 7): a replay changed creditsRemaining');
    expect(xml).toContain('<property name="baseline.known" value="SCR-IDEMP-3"/>');
    expect(xml).toContain('<property name="baseline.fixed" value="SCR-AUDIT-2"/>');
    expect(summary(known)).toContain('known SCR-IDEMP-3: a replay changed');
    expect(summary(known)).toContain('fixed SCR-AUDIT-2 (passes now: prune this entry): ticket 8');
    expect(summary(known)).toContain(
      'PASS: no must requirement failed beyond the baseline (1 known failure(s) accepted)',
    );
    expect(htmlReport(known)).toContain('fail (known)');
    expect(htmlReport(known)).toContain('passes now: prune this entry');

    const expired = withBaseline('expired');
    const xml2 = junitReport(expired);
    expect(xml2).toContain('<testsuite name="must" tests="4" failures="1"');
    expect(xml2).toContain('<failure message="baseline entry expired (2020-01-01): a replay changed');
    expect(summary(expired)).toContain('EXPIRED SCR-IDEMP-3 (entry expired 2020-01-01: fails the run again): ticket 7');
    expect(summary(expired)).toContain('FAIL (baseline entry expired) SCR-IDEMP-3');
    expect(htmlReport(expired)).toContain('fail (baseline expired)');
  });
});
