// Progress on stderr while a run goes (one line per check; rewritten in place on a terminal) and a
// summary at the end. Output goes to the stream it is given, never to stdout, so --json pipelines stay clean.

import { baselineMark, entryLine } from '../baseline.js';
import { byCause, CAUSE_LABELS, coverageLine } from '../coverage.js';
import type { HarnessEvent, Reporter, RunResult } from '../events.js';

const LISTED = 24;

const MARK = { pass: 'ok  ', fail: 'FAIL', skip: 'skip', error: 'ERR ' } as const;

export function consoleReporter(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr): Reporter {
  const tty = Boolean(out.isTTY);
  let started = 0;
  return (e: HarnessEvent) => {
    switch (e.type) {
      case 'run-start':
        started = Date.now();
        out.write(
          `conformance: ${e.target} — ${e.checks} checks, ${e.requirements} requirements, seed ${e.seed}, ${e.runs} runs per property\n`,
        );
        break;
      case 'capabilities': {
        const on = Object.entries(e.capabilities)
          .filter(([, v]) => v)
          .map(([k]) => k);
        const off = Object.entries(e.capabilities)
          .filter(([, v]) => !v)
          .map(([k]) => k);
        out.write(`capabilities: ${on.join(', ') || 'none'}${off.length ? ` (without: ${off.join(', ')})` : ''}\n`);
        for (const n of e.notes) out.write(`  note: ${n}\n`);
        break;
      }
      case 'check-start':
        if (tty) out.write(`\r\x1b[K[${e.index + 1}/${e.total}] ${e.id} …`);
        break;
      case 'check-end': {
        const r = e.result;
        const why =
          r.status === 'skip'
            ? ` — ${r.skipReason}`
            : r.status === 'error'
              ? ` — ${r.error}`
              : r.status === 'fail'
                ? ` — ${r.failures.length} failure(s): ${[...new Set(r.failures.map((f) => f.requirement))].join(', ')}`
                : '';
        out.write(
          `${tty ? '\r\x1b[K' : ''}[${e.index + 1}/${e.total}] ${MARK[r.status]} ${r.id} (${(r.durationMs / 1000).toFixed(1)} s)${why}\n`,
        );
        break;
      }
      case 'regression':
        if (!e.passed) out.write(`  saved counterexample still fails: ${e.file}\n`);
        break;
      case 'run-end':
        out.write(summary(e.result, Date.now() - started));
        break;
    }
  };
}

export function summary(r: RunResult, ms = r.durationMs): string {
  const m = r.counts.must;
  const p = r.counts.policy;
  const lines = [
    '',
    `must:   ${m.pass} pass, ${m.fail} fail, ${m.error} error, ${m.skip} skipped, ${m.notCovered} not covered, ${m.notObservable} not observable, ${m.notRun} not run`,
    `policy: ${p.pass} pass, ${p.fail} deviate, ${p.error} error, ${p.skip} skipped, ${p.notCovered} not covered, ${p.notRun} not run (policy never fails a run)`,
    `cases:  ${r.cases} inputs evaluated (saved counterexamples, generated cases and shrinks)`,
    `${coverageLine(r.coverage)}`,
  ];
  // the reports list every one with its reasons; the summary names the first few of each cause
  for (const [cause, us] of byCause(r.coverage))
    lines.push(
      `  not observed, ${CAUSE_LABELS[cause]} (${us.length}): ${us
        .slice(0, LISTED)
        .map((u) => u.id)
        .join(', ')}${us.length > LISTED ? `, … (${us.length - LISTED} more in the reports)` : ''}`,
    );
  if (r.baseline) {
    const b = r.baseline;
    const count = (s: string) => b.entries.filter((e) => e.state === s).length;
    lines.push(
      `baseline ${b.source}: ${b.known.length} known, ${b.expired.length} expired, ${b.new.length} new failure(s); entries: ${count('known')} known, ${count('expired')} expired, ${count('fixed')} fixed, ${count('unchecked')} unchecked`,
    );
    for (const e of b.entries.filter((x) => x.state !== 'unchecked')) lines.push(`  ${entryLine(e)}`);
  }
  for (const req of r.requirements.filter((x) => x.status === 'fail' || x.status === 'error')) {
    const mark = req.status === 'fail' ? baselineMark(r, req.id) : undefined;
    const label =
      req.level === 'policy'
        ? 'dev.'
        : mark === 'known'
          ? 'known'
          : mark === 'expired'
            ? 'FAIL (baseline entry expired)'
            : mark === 'new'
              ? 'FAIL (new)'
              : 'FAIL';
    lines.push(`  ${label} ${req.id}: ${req.failures[0]?.why ?? req.reasons[0] ?? ''}`);
    const replay = req.failures.find((f) => f.replay)?.replay;
    if (replay) lines.push(`       replay: ${replay}`);
  }
  if (r.unknownRequirementIds.length)
    lines.push(`requirement ids not in the catalogue: ${r.unknownRequirementIds.join(', ')}`);
  const known = r.baseline?.known.length ?? 0;
  const verdict =
    known && r.ok
      ? `no must requirement failed beyond the baseline (${known} known failure(s) accepted)`
      : `every must requirement that ran ${r.ok ? 'passed' : 'did not pass'}`;
  lines.push(`${r.ok ? 'PASS' : 'FAIL'}: ${verdict} (${(ms / 1000).toFixed(1)} s, seed ${r.seed})`, '');
  return lines.join('\n');
}
