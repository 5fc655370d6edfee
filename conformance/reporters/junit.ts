// JUnit XML: one testcase per requirement id, in a `must` suite and a `policy` suite. A must failure is
// a <failure> with the counterexample and the replay command; skipped, not covered, not observable and
// not run requirements are <skipped> with the reason. Policy deviations never fail a run, so they are
// reported as <skipped message="policy deviation …"> with the full evidence in <system-out>; so are
// failures a baseline accepts (<skipped message="known failure …">). The coverage index and the
// baseline's outcome are suite <properties>.

import { baselineMark, entriesFor } from '../baseline.js';
import { byCause } from '../coverage.js';
import type { RequirementResult, RunResult } from '../events.js';
import { failureText } from './evidence.js';

export const xmlEscape = (s: string) =>
  s
    .replace(
      // eslint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot carry are the point
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

function testcase(r: RequirementResult, run: RunResult): string {
  const name = xmlEscape(`${r.id}: ${r.text}`);
  const cls = xmlEscape(`${r.level}.${r.id.replace(/-\d+$/, '')}`);
  const open = `    <testcase classname="${cls}" name="${name}">`;
  const details = r.failures.map(failureText).join('\n\n');
  switch (r.status) {
    case 'pass':
      return `    <testcase classname="${cls}" name="${name}"/>`;
    case 'fail':
      if (r.level === 'policy') {
        return `${open}\n      <skipped message="${xmlEscape(`policy deviation (does not fail the run): ${r.failures[0]?.why ?? ''}`)}"/>\n      <system-out>${xmlEscape(details)}</system-out>\n    </testcase>`;
      }
      if (baselineMark(run, r.id) === 'known') {
        const why = entriesFor(run, r.id)
          .map((e) => e.reason)
          .join('; ');
        return `${open}\n      <skipped message="${xmlEscape(`known failure (baseline: ${why}): ${r.failures[0]?.why ?? ''}`)}"/>\n      <system-out>${xmlEscape(details)}</system-out>\n    </testcase>`;
      }
      if (baselineMark(run, r.id) === 'expired') {
        const until = entriesFor(run, r.id)
          .map((e) => e.expires)
          .filter(Boolean)
          .join(', ');
        return `${open}\n      <failure message="${xmlEscape(`baseline entry expired (${until}): ${r.failures[0]?.why ?? 'failed'}`)}" type="${xmlEscape(r.failures[0]?.check ?? 'check')}">${xmlEscape(details)}</failure>\n    </testcase>`;
      }
      return `${open}\n      <failure message="${xmlEscape(r.failures[0]?.why ?? 'failed')}" type="${xmlEscape(r.failures[0]?.check ?? 'check')}">${xmlEscape(details)}</failure>\n    </testcase>`;
    case 'error':
      return `${open}\n      <error message="${xmlEscape(r.reasons[0] ?? 'error')}">${xmlEscape(r.reasons.join('\n'))}</error>\n    </testcase>`;
    default: {
      const reason =
        r.status === 'not-covered'
          ? 'not covered by any check'
          : r.status === 'not-observable'
            ? 'not observable through the API'
            : r.status === 'not-run'
              ? `not run${r.reasons.length ? ` (${r.reasons[0]})` : ''}`
              : r.reasons.join('; ') || 'skipped';
      return `${open}\n      <skipped message="${xmlEscape(reason)}"/>\n    </testcase>`;
    }
  }
}

/** The coverage index and the baseline's outcome as JUnit properties (CI systems show them beside the tests). */
function properties(run: RunResult): string[] {
  const c = run.coverage;
  const props: [string, string | number][] = [
    ['target', run.target],
    ['seed', run.seed],
    ['runs', run.runs],
    ['coverage.index', c.index.toFixed(4)],
    ['coverage.observed', c.observed],
    ['coverage.must', c.must],
    ['coverage.passed', c.passed],
    ['coverage.score', c.score === null ? '' : c.score.toFixed(4)],
    ...byCause(c).map(([cause, us]): [string, string] => [
      `coverage.unobserved.${cause}`,
      us.map((u) => u.id).join(','),
    ]),
  ];
  if (run.baseline) {
    const b = run.baseline;
    props.push(
      ['baseline.source', b.source],
      ['baseline.known', b.known.join(',')],
      ['baseline.expired', b.expired.join(',')],
      ['baseline.new', b.new.join(',')],
    );
    props.push([
      'baseline.fixed',
      b.entries
        .filter((e) => e.state === 'fixed')
        .map((e) => e.requirement)
        .join(','),
    ]);
  }
  return props.map(([k, v]) => `<property name="${xmlEscape(k)}" value="${xmlEscape(String(v))}"/>`);
}

/** A `must` failure counts as a JUnit failure unless the baseline accepts it. */
const failing = (run: RunResult, r: RequirementResult) =>
  r.level === 'must' && r.status === 'fail' && baselineMark(run, r.id) !== 'known';

export function junitReport(run: RunResult): string {
  const suite = (level: 'must' | 'policy') => {
    const rs = run.requirements.filter((r) => r.level === level);
    const failures = rs.filter((r) => failing(run, r)).length;
    const errors = rs.filter((r) => r.status === 'error').length;
    const skipped = rs.filter((r) => r.status !== 'pass' && r.status !== 'error' && !failing(run, r)).length;
    return [
      `  <testsuite name="${level}" tests="${rs.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" timestamp="${run.startedAt}">`,
      `    <properties>${properties(run).join('')}</properties>`,
      ...rs.map((r) => testcase(r, run)),
      '  </testsuite>',
    ].join('\n');
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="conformance" tests="${run.requirements.length}" failures="${run.requirements.filter((r) => failing(run, r)).length}" errors="${run.requirements.filter((r) => r.status === 'error').length}" time="${(run.durationMs / 1000).toFixed(3)}">`,
    suite('must'),
    suite('policy'),
    '</testsuites>',
    '',
  ].join('\n');
}
