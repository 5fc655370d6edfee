// JUnit XML: one testcase per requirement id, in a `must` suite and a `policy` suite. A must failure is
// a <failure> with the counterexample and the replay command; skipped, not covered, not observable and
// not run requirements are <skipped> with the reason. Policy deviations never fail a run, so they are
// reported as <skipped message="policy deviation …"> with the full evidence in <system-out>.

import type { RequirementResult, RunResult } from '../events.js';
import { failureText } from './evidence.js';

export const xmlEscape = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

function testcase(r: RequirementResult): string {
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
      return `${open}\n      <failure message="${xmlEscape(r.failures[0]?.why ?? 'failed')}" type="${xmlEscape(r.failures[0]?.check ?? 'check')}">${xmlEscape(details)}</failure>\n    </testcase>`;
    case 'error':
      return `${open}\n      <error message="${xmlEscape(r.reasons[0] ?? 'error')}">${xmlEscape(r.reasons.join('\n'))}</error>\n    </testcase>`;
    default: {
      const reason = r.status === 'not-covered' ? 'not covered by any check' : r.status === 'not-observable' ? 'not observable through the API' : r.status === 'not-run' ? `not run${r.reasons.length ? ` (${r.reasons[0]})` : ''}` : (r.reasons.join('; ') || 'skipped');
      return `${open}\n      <skipped message="${xmlEscape(reason)}"/>\n    </testcase>`;
    }
  }
}

export function junitReport(run: RunResult): string {
  const suite = (level: 'must' | 'policy') => {
    const rs = run.requirements.filter((r) => r.level === level);
    const failures = level === 'must' ? rs.filter((r) => r.status === 'fail').length : 0;
    const errors = rs.filter((r) => r.status === 'error').length;
    const skipped = rs.filter((r) => r.status !== 'pass' && r.status !== 'error' && (level === 'policy' || r.status !== 'fail')).length;
    return [
      `  <testsuite name="${level}" tests="${rs.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" timestamp="${run.startedAt}">`,
      `    <properties><property name="target" value="${xmlEscape(run.target)}"/><property name="seed" value="${run.seed}"/><property name="runs" value="${run.runs}"/></properties>`,
      ...rs.map(testcase),
      '  </testsuite>',
    ].join('\n');
  };
  const must = run.requirements.filter((r) => r.level === 'must');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="conformance" tests="${run.requirements.length}" failures="${must.filter((r) => r.status === 'fail').length}" errors="${run.requirements.filter((r) => r.status === 'error').length}" time="${(run.durationMs / 1000).toFixed(3)}">`,
    suite('must'),
    suite('policy'),
    '</testsuites>',
    '',
  ].join('\n');
}
