// The human-readable report: one self-contained HTML page with the run's summary, a table of every
// requirement id (pass, fail, skipped, not covered…) with its level, and for each failure the
// counterexample, the exchanges (request, response), why it failed, and the command that replays it;
// the coverage index with every must requirement not observed and why, and the baseline's entries.

import { baselineMark } from '../baseline.js';
import { byCause, CAUSE_LABELS, percent } from '../coverage.js';
import type { CheckResult, RequirementResult, RunResult } from '../events.js';
import type { Failure } from '../failure.js';
import { exchangeText, valueText } from './evidence.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const LABEL: Record<RequirementResult['status'], string> = {
  pass: 'pass',
  fail: 'fail',
  skip: 'skipped',
  error: 'error',
  'not-covered': 'not covered',
  'not-observable': 'not observable',
  'not-run': 'not run',
};

function statusCell(r: RequirementResult, run: RunResult): string {
  const mark = r.level === 'must' && r.status === 'fail' ? baselineMark(run, r.id) : undefined;
  const label =
    r.level === 'policy' && r.status === 'fail'
      ? 'deviates'
      : mark === 'known'
        ? 'fail (known)'
        : mark === 'expired'
          ? 'fail (baseline expired)'
          : mark === 'new'
            ? 'fail (new)'
            : LABEL[r.status];
  return `<td class="st ${r.status}${r.level === 'policy' ? ' policy' : ''}">${esc(label)}</td>`;
}

function failureBlock(f: Failure, n: number): string {
  const cx = f.counterexample;
  return `<div class="failure" id="f-${esc(f.requirement)}-${n}">
<p class="why"><b>${esc(f.requirement)}</b> — ${esc(f.why)}${f.occurrences && f.occurrences > 1 ? ` <span class="muted">(seen ${f.occurrences} times)</span>` : ''}</p>
<p class="muted">found by <code>${esc(f.check)}</code></p>
${cx ? `<p>Counterexample <code>${esc(cx.property)}</code>${cx.numShrinks !== undefined ? `, shrunk ${cx.numShrinks} times` : ''}; seed ${cx.seed}${cx.path ? `, path <code>${esc(cx.path)}</code>` : ''}${cx.regressionFile ? `; saved as <code>${esc(cx.regressionFile)}</code>` : ''}</p><pre class="cx">${esc(valueText(cx.value))}</pre>` : ''}
${f.replay ? `<p>Replay:</p><pre class="cmd">${esc(f.replay)}</pre>` : ''}
${f.evidence.map((ex, i) => `<details${i === f.evidence.length - 1 ? ' open' : ''}><summary>exchange ${i + 1} of ${f.evidence.length}: ${esc(ex.request.method)} ${esc(new URL(ex.request.url).pathname)} → ${ex.response ? ex.response.status : esc(ex.error ?? 'no response')}</summary><pre>${esc(exchangeText(ex))}</pre></details>`).join('\n')}
</div>`;
}

function requirementRow(r: RequirementResult, run: RunResult): string {
  const detail =
    r.status === 'fail' ? `<a href="#req-${esc(r.id)}">${r.failures.length} failure(s)</a>` : esc(r.reasons.join('; '));
  return `<tr class="${r.status}"><td><code>${esc(r.id)}</code></td><td>${r.level}${r.decision ? ` <span class="muted">${esc(r.decision)}</span>` : ''}</td>${statusCell(r, run)}<td>${esc(r.text)}</td><td>${r.checks.map((c) => `<code>${esc(c)}</code>`).join('<br>') || '<span class="muted">—</span>'}</td><td>${detail}</td></tr>`;
}

function checkRow(c: CheckResult): string {
  return `<tr class="${c.status}"><td><code>${esc(c.id)}</code></td><td class="st ${c.status}">${c.status}</td><td>${esc(c.title)}</td><td>${c.requirements.map(esc).join(', ')}</td><td>${(c.durationMs / 1000).toFixed(1)} s</td><td>${esc(c.skipReason ?? c.error ?? '')}</td></tr>`;
}

function coverageSection(run: RunResult): string {
  const rows = byCause(run.coverage).flatMap(([cause, us]) =>
    us.map(
      (u) =>
        `<tr><td><code>${esc(u.id)}</code></td><td>${esc(CAUSE_LABELS[cause])}</td><td>${esc(u.reasons.join('; '))}</td></tr>`,
    ),
  );
  return `<h2 id="coverage">Coverage index</h2>
<p>${run.coverage.observed} of ${run.coverage.must} must requirements observable with this profile and these flags (${percent(run.coverage.index)}); the ${run.coverage.unobserved.length} not observed:</p>
${rows.length ? `<table><thead><tr><th>Id</th><th>Not observed because</th><th>Reasons</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>` : '<p>None.</p>'}`;
}

function baselineSection(run: RunResult): string {
  const b = run.baseline;
  if (!b) return '';
  const note = {
    known: 'accepted',
    expired: 'expired: fails the run again',
    fixed: 'passes now: prune this entry',
    unchecked: 'not observed this run',
  };
  return `<h2 id="baseline">Baseline</h2>
<p><code>${esc(b.source)}</code> (${b.format === 'report' ? 'a previous report' : 'a baseline file'})${b.new.length ? `; new failures: ${b.new.map((id) => `<a href="#req-${esc(id)}"><code>${esc(id)}</code></a>`).join(', ')}` : ''}</p>
<table><thead><tr><th>Requirement</th><th>Check</th><th>State</th><th>Expires</th><th>Reason</th></tr></thead><tbody>
${b.entries.map((e) => `<tr class="${e.state}"><td><code>${esc(e.requirement)}</code></td><td>${e.check ? `<code>${esc(e.check)}</code>` : '<span class="muted">any</span>'}</td><td class="st ${e.state === 'expired' ? 'fail' : e.state === 'fixed' ? 'pass' : 'skip'}">${esc(e.state)} <span class="muted">(${esc(note[e.state])})</span></td><td>${esc(e.expires ?? '—')}</td><td>${esc(e.reason)}</td></tr>`).join('\n')}
</tbody></table>`;
}

export function htmlReport(run: RunResult): string {
  const m = run.counts.must;
  const p = run.counts.policy;
  const failing = run.requirements.filter((r) => r.status === 'fail');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance report — ${esc(run.target)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2430}h1{font-size:22px}h2{margin-top:32px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e3e6ea;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f4f6f8;position:sticky;top:0}.muted{color:#6b7480}code{font-size:12.5px}
.st{font-weight:600;white-space:nowrap}.st.pass{color:#11773a}.st.fail{color:#b3261e}.st.fail.policy{color:#a15c00}.st.error{color:#7a1fa2}
.st.skip,.st.not-run,.st.not-covered,.st.not-observable{color:#6b7480}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff;font-weight:700}.ok{background:#11773a}.ko{background:#b3261e}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:420px;font-size:12px}pre.cmd{background:#1d2430;color:#e8edf2}
.failure{border-left:4px solid #b3261e;padding:4px 12px;margin:12px 0}.summary td{border:none;padding:2px 12px 2px 0}
</style></head><body>
<h1>Conformance report <span class="verdict ${run.ok ? 'ok">PASS' : 'ko">FAIL'}</span></h1>
<table class="summary">
<tr><td>Target</td><td><code>${esc(run.target)}</code></td></tr>
<tr><td>Started</td><td>${esc(run.startedAt)} (${(run.durationMs / 1000).toFixed(1)} s)</td></tr>
<tr><td>Seed / runs</td><td>${run.seed} / ${run.runs} per property, ${run.cases} inputs evaluated${run.only.length ? `; only ${run.only.map(esc).join(', ')}` : ''}</td></tr>
<tr><td>Command</td><td><code>${esc(run.command)} --seed ${run.seed}</code></td></tr>
<tr><td>Must</td><td>${m.pass} pass, <b>${m.fail} fail</b>, ${m.error} error, ${m.skip} skipped, ${m.notCovered} not covered, ${m.notObservable} not observable, ${m.notRun} not run</td></tr>
<tr><td>Coverage index</td><td><b>${run.coverage.observed} of ${run.coverage.must}</b> must requirements observable with this profile and these flags (${percent(run.coverage.index)}) — <a href="#coverage">the others and why</a></td></tr>
<tr><td>Score</td><td><b>${run.coverage.passed} of ${run.coverage.observed}</b> observed must requirements passed${run.coverage.score === null ? '' : ` (${percent(run.coverage.score)})`}</td></tr>
${run.baseline ? `<tr><td>Baseline</td><td><code>${esc(run.baseline.source)}</code>: ${run.baseline.known.length} known, <b>${run.baseline.expired.length} expired, ${run.baseline.new.length} new</b> failure(s); ${run.baseline.entries.filter((e) => e.state === 'fixed').length} entr${run.baseline.entries.filter((e) => e.state === 'fixed').length === 1 ? 'y' : 'ies'} fixed — <a href="#baseline">entries</a></td></tr>` : ''}
<tr><td>Policy</td><td>${p.pass} pass, ${p.fail} deviate, ${p.error} error, ${p.skip} skipped, ${p.notCovered} not covered, ${p.notRun} not run — policy items never fail a run</td></tr>
<tr><td>Capabilities</td><td>${Object.entries(run.capabilities)
    .map(([k, v]) => `${v ? '✓' : '✗'} ${esc(k)}`)
    .join(' · ')}</td></tr>
${run.notes.map((n) => `<tr><td></td><td class="muted">${esc(n)}</td></tr>`).join('\n')}
${run.unknownRequirementIds.length ? `<tr><td>Unknown ids</td><td>${run.unknownRequirementIds.map(esc).join(', ')}</td></tr>` : ''}
</table>
<h2>Requirements</h2>
<table><thead><tr><th>Id</th><th>Level</th><th>Status</th><th>Requirement</th><th>Checks</th><th>Detail</th></tr></thead><tbody>
${run.requirements.map((r) => requirementRow(r, run)).join('\n')}
</tbody></table>
${coverageSection(run)}
${baselineSection(run)}
<h2>Failures</h2>
${failing.length ? failing.map((r) => `<section id="req-${esc(r.id)}"><h3><code>${esc(r.id)}</code> (${r.level}${r.level === 'policy' ? ', does not fail the run' : ''})</h3><p>${esc(r.text)}</p>${r.failures.map((f, i) => failureBlock(f, i)).join('\n')}</section>`).join('\n') : '<p>None.</p>'}
<h2>Checks</h2>
<table><thead><tr><th>Check</th><th>Status</th><th>What it verifies</th><th>Requirements</th><th>Time</th><th>Note</th></tr></thead><tbody>
${run.checks.map(checkRow).join('\n')}
</tbody></table>
${run.regressions.length ? `<h2>Saved counterexamples replayed</h2><ul>${run.regressions.map((r) => `<li class="${r.passed ? '' : 'fail'}">${r.passed ? '✓' : '✗'} <code>${esc(r.file)}</code> (${esc(r.check)}/${esc(r.property)})</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
