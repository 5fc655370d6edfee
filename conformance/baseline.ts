// Baselines: failures a team already knows about. A baseline is a small file the team keeps (YAML or
// JSON: requirement ids, optionally the check that finds them, a reason, an optional expiry date) or a
// previous run's report.json (its failing `must` requirements). A `must` failure every entry of which is
// listed and unexpired is reported as known and does not fail the run; any other failure is new and
// does; a listed failure whose entry has expired fails again; entries whose requirement passed are
// reported as fixed so the baseline can be pruned. Harness errors are never baselined.

import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import type { CheckResult, RequirementResult, RunResult } from './events.js';

export interface BaselineEntry {
  /** A requirement id of the catalogue. */
  requirement: string;
  /** Only failures found by this check (default: any check). */
  check?: string;
  /** Why the failure is accepted (a ticket, an agreed deviation…). */
  reason: string;
  /** `YYYY-MM-DD` (valid through that day, UTC) or an ISO date-time; past it the failure fails the run again. */
  expires?: string;
}

export interface Baseline {
  /** Where it came from (a file path, or "options" when given in code). */
  source: string;
  format: 'baseline' | 'report';
  entries: BaselineEntry[];
}

/** What became of each baseline entry in this run. */
export type EntryState =
  /** the failure still occurs and the entry accepts it */
  | 'known'
  /** the failure still occurs but the entry has expired: it fails the run */
  | 'expired'
  /** the requirement was observed and the failure no longer occurs: prune the entry */
  | 'fixed'
  /** the requirement was not observed this run (skipped, not selected…): nothing to say */
  | 'unchecked';

export interface BaselineOutcome {
  source: string;
  format: Baseline['format'];
  entries: (BaselineEntry & { state: EntryState })[];
  /** `must` requirements failing, every failure accepted by an unexpired entry: they do not fail the run. */
  known: string[];
  /** `must` requirements failing with a failure only an expired entry lists. */
  expired: string[];
  /** `must` requirements failing with a failure no entry lists. */
  new: string[];
}

export const BASELINE_FORMAT_VERSION = 1;
const ENTRY_FIELDS = ['requirement', 'check', 'reason', 'expires'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The instant an entry stops holding: the end of its day (UTC) for a date, the instant for a date-time (NaN when neither). */
export function expiryInstant(expires: string): number {
  const day = DAY.test(expires) ? Date.parse(`${expires}T00:00:00Z`) : NaN;
  if (!Number.isNaN(day)) return new Date(day).toISOString().slice(0, 10) === expires ? day + 86_400_000 : NaN;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(expires)) return NaN;
  const t = Date.parse(expires);
  // a calendar day that does not exist (2027-02-30) is refused, not rolled over
  const date = new Date(
    Date.UTC(Number(expires.slice(0, 4)), Number(expires.slice(5, 7)) - 1, Number(expires.slice(8, 10))),
  );
  return date.toISOString().slice(0, 10) === expires.slice(0, 10) ? t : NaN;
}

export const isExpired = (e: BaselineEntry, now: Date) =>
  e.expires !== undefined && now.getTime() >= expiryInstant(e.expires);

function isReport(
  data: unknown,
): data is Pick<RunResult, 'requirements' | 'startedAt'> & { baseline?: BaselineOutcome } {
  return (
    typeof data === 'object' &&
    data !== null &&
    Array.isArray((data as RunResult).requirements) &&
    (data as RunResult).requirements.every((r) => typeof r?.id === 'string' && typeof r?.status === 'string')
  );
}

/** A previous report's failing `must` requirements, keeping the reason and expiry of entries that report was run with. */
function fromReport(
  report: Pick<RunResult, 'requirements' | 'startedAt'> & { baseline?: BaselineOutcome },
  source: string,
): BaselineEntry[] {
  const carried = report.baseline?.entries ?? [];
  return report.requirements
    .filter((r) => r.level === 'must' && r.status === 'fail')
    .flatMap((r) => {
      const kept = carried.filter((e) => e.requirement === r.id && (e.state === 'known' || e.state === 'expired'));
      if (kept.length) return kept.map(({ state: _state, ...e }) => e);
      return [{ requirement: r.id, reason: `failed in ${source} (run of ${report.startedAt ?? 'unknown date'})` }];
    });
}

/**
 * Validates a baseline (the parsed file, or an object given in code). `knownIds` is the catalogue:
 * an entry naming an id it lacks is refused, so a typo never accepts nothing silently.
 */
export function parseBaseline(data: unknown, source: string, knownIds: ReadonlySet<string>): Baseline {
  const where = `baseline ${source}`;
  if (isReport(data)) return { source, format: 'report', entries: fromReport(data, source) };
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error(`${where}: expected an object with \`entries\` (a baseline file) or a report.json`);
  const obj = data as Record<string, unknown>;
  for (const k of Object.keys(obj))
    if (k !== 'version' && k !== 'entries') throw new Error(`${where}: unknown field '${k}' (known: version, entries)`);
  if (obj.version !== undefined && obj.version !== BASELINE_FORMAT_VERSION)
    throw new Error(
      `${where}: version ${JSON.stringify(obj.version)} is not supported (this harness reads version ${BASELINE_FORMAT_VERSION})`,
    );
  if (!Array.isArray(obj.entries)) throw new Error(`${where}: \`entries\` must be a list`);
  const seen = new Set<string>();
  const entries = obj.entries.map((raw, i): BaselineEntry => {
    const at = `${where}: entry ${i + 1}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new Error(`${at}: expected an object with requirement and reason`);
    const e = raw as Record<string, unknown>;
    for (const k of Object.keys(e))
      if (!ENTRY_FIELDS.includes(k)) throw new Error(`${at}: unknown field '${k}' (known: ${ENTRY_FIELDS.join(', ')})`);
    if (typeof e.requirement !== 'string' || !e.requirement)
      throw new Error(`${at}: \`requirement\` (a requirement id) is required`);
    if (!knownIds.has(e.requirement))
      throw new Error(`${at}: requirement '${e.requirement}' is not in the requirements catalogue`);
    if (e.check !== undefined && (typeof e.check !== 'string' || !e.check))
      throw new Error(`${at}: \`check\` must be a check id`);
    if (typeof e.reason !== 'string' || !e.reason.trim())
      throw new Error(`${at} (${e.requirement}): \`reason\` (why the failure is accepted) is required`);
    let expires: string | undefined;
    if (e.expires !== undefined) {
      // YAML may read an unquoted date as a Date
      expires =
        e.expires instanceof Date
          ? e.expires.toISOString().slice(0, 10)
          : typeof e.expires === 'string'
            ? e.expires
            : undefined;
      if (expires === undefined || Number.isNaN(expiryInstant(expires))) {
        throw new Error(
          `${at} (${e.requirement}): \`expires\` must be a date (YYYY-MM-DD) or an ISO date-time, got ${JSON.stringify(e.expires)}`,
        );
      }
    }
    const key = `${e.requirement} ${e.check ?? ''}`;
    if (seen.has(key))
      throw new Error(`${at}: ${e.requirement}${e.check ? ` (check ${e.check})` : ''} is listed twice`);
    seen.add(key);
    return {
      requirement: e.requirement,
      ...(e.check ? { check: e.check } : {}),
      reason: e.reason.trim(),
      ...(expires ? { expires } : {}),
    };
  });
  return { source, format: 'baseline', entries };
}

/** Reads a baseline file or a report.json (JSON or YAML). */
export function loadBaseline(file: string, knownIds: ReadonlySet<string>): Baseline {
  let data: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    throw new Error(`baseline ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseBaseline(data, file, knownIds);
}

const matches = (e: BaselineEntry, requirement: string, check: string) =>
  e.requirement === requirement && (e.check === undefined || e.check === check);

/** True when the requirement was observed by `check` this run (the check ran and did not set it aside). */
function observedBy(check: string, requirement: string, checks: readonly CheckResult[]): boolean {
  const c = checks.find((x) => x.id === check);
  return (
    !!c &&
    (c.status === 'pass' || c.status === 'fail') &&
    c.requirements.includes(requirement) &&
    !c.unobserved?.some((u) => u.requirement === requirement)
  );
}

/**
 * Settles a run against a baseline: which `must` failures are known, expired or new, and what became of
 * each entry. `now` decides expiry (the run's start).
 */
export function settleBaseline(
  baseline: Baseline,
  requirements: readonly RequirementResult[],
  checks: readonly CheckResult[],
  now: Date,
): BaselineOutcome {
  const live = baseline.entries.filter((e) => !isExpired(e, now));
  const known: string[] = [];
  const expired: string[] = [];
  const fresh: string[] = [];
  for (const r of requirements.filter((x) => x.level === 'must' && x.status === 'fail')) {
    const unlisted = r.failures.filter((f) => !live.some((e) => matches(e, r.id, f.check)));
    if (unlisted.length === 0) known.push(r.id);
    else if (unlisted.every((f) => baseline.entries.some((e) => matches(e, r.id, f.check)))) expired.push(r.id);
    else fresh.push(r.id);
  }
  const entries = baseline.entries.map((e) => {
    const r = requirements.find((x) => x.id === e.requirement);
    let state: EntryState;
    if (r?.failures.some((f) => matches(e, r.id, f.check))) state = isExpired(e, now) ? 'expired' : 'known';
    else if (r && (e.check ? observedBy(e.check, r.id, checks) : r.status === 'pass' || r.status === 'fail'))
      state = 'fixed';
    else state = 'unchecked';
    return { ...e, state };
  });
  return { source: baseline.source, format: baseline.format, entries, known, expired, new: fresh };
}

/**
 * The text of a baseline file listing this run's `must` failures (`--write-baseline`), one entry per
 * requirement. Entries of the baseline the run was given keep their reason and expiry; the others get
 * a reason naming the date and the first failure, to be replaced by the team's own.
 */
export function baselineFileText(
  run: Pick<RunResult, 'requirements' | 'startedAt' | 'target'> & { baseline?: BaselineOutcome },
): string {
  const previous = run.baseline?.entries ?? [];
  const entries: BaselineEntry[] = run.requirements
    .filter((r) => r.level === 'must' && r.status === 'fail')
    .flatMap((r) => {
      const kept = previous.filter((e) => e.requirement === r.id && (e.state === 'known' || e.state === 'expired'));
      if (kept.length && r.failures.every((f) => kept.some((e) => matches(e, r.id, f.check))))
        return kept.map(({ state: _state, ...e }) => e);
      const found = [...new Set(r.failures.map((f) => f.check))].join(', ');
      return [
        {
          requirement: r.id,
          reason: `failing since ${run.startedAt.slice(0, 10)} (found by ${found}): ${(r.failures[0]?.why ?? '').split('\n')[0].slice(0, 160)}`,
        },
      ];
    });
  const head = [
    `# Conformance baseline: known failures of ${run.target}, written ${run.startedAt}.`,
    '# Each entry: requirement (id), optional check (only failures that check finds), reason, optional',
    '# expires (YYYY-MM-DD; from the next day on the failure fails the run again). Pass it with --baseline.',
  ];
  return `${head.join('\n')}\n${YAML.stringify({ version: BASELINE_FORMAT_VERSION, entries }, { lineWidth: 0 })}`;
}

/** How the baseline classes a failing `must` requirement of this run (undefined without a baseline). */
export function baselineMark(
  run: Pick<RunResult, 'baseline'>,
  requirement: string,
): 'known' | 'expired' | 'new' | undefined {
  const b = run.baseline;
  if (!b) return undefined;
  return b.known.includes(requirement)
    ? 'known'
    : b.expired.includes(requirement)
      ? 'expired'
      : b.new.includes(requirement)
        ? 'new'
        : undefined;
}

/** The entries that accept (or used to accept) a requirement's failures. */
export const entriesFor = (run: Pick<RunResult, 'baseline'>, requirement: string) =>
  run.baseline?.entries.filter(
    (e) => e.requirement === requirement && (e.state === 'known' || e.state === 'expired'),
  ) ?? [];

/** One line per entry: its state, requirement, check, expiry and reason. */
export function entryLine(e: BaselineEntry & { state: EntryState }): string {
  const what = { known: 'known', expired: 'EXPIRED', fixed: 'fixed', unchecked: 'unchecked' }[e.state];
  const note = {
    known: '',
    expired: ` (entry expired ${e.expires}: fails the run again)`,
    fixed: ' (passes now: prune this entry)',
    unchecked: ' (not observed this run)',
  }[e.state];
  return `${what} ${e.requirement}${e.check ? ` [${e.check}]` : ''}${note}${e.state === 'known' && e.expires ? ` (until ${e.expires})` : ''}: ${e.reason}`;
}
