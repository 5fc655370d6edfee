// The result model every benchmark section produces: figures with an optional target and a verdict,
// free-form tables for the detail, and "not measured" with a reason when a section could not run.

export type Verdict = 'PASS' | 'MISS' | 'INFO' | 'NOT MEASURED';

export interface Target {
  op: '<' | '<=' | '>=' | '>';
  value: number;
  /** How the target reads in the report, e.g. "≥ 3× Prism". */
  text: string;
}

export interface Figure {
  id: string;
  label: string;
  value: number | null;
  unit: string;
  target?: Target;
  verdict: Verdict;
  note?: string;
}

export interface Table {
  title: string;
  columns: string[];
  rows: (string | number | null)[][];
}

export interface SectionResult {
  id: string;
  title: string;
  /** Set when the whole section could not run. */
  notMeasured?: string;
  figures: Figure[];
  tables: Table[];
  notes: string[];
  durationS: number;
  /** Raw numbers for bench.json (per-run detail the tables summarise). */
  data?: unknown;
}

function meets(value: number, t: Target): boolean {
  switch (t.op) {
    case '<':
      return value < t.value;
    case '<=':
      return value <= t.value;
    case '>=':
      return value >= t.value;
    case '>':
      return value > t.value;
  }
}

/** A measured figure; its verdict follows from the target (INFO when there is none). */
export function figure(id: string, label: string, value: number, unit: string, target?: Target, note?: string): Figure {
  const verdict: Verdict = !Number.isFinite(value)
    ? 'NOT MEASURED'
    : target
      ? meets(value, target)
        ? 'PASS'
        : 'MISS'
      : 'INFO';
  return {
    id,
    label,
    value: Number.isFinite(value) ? value : null,
    unit,
    ...(target ? { target } : {}),
    verdict,
    ...(note ? { note } : {}),
  };
}

/** A figure that could not be measured, with the reason in the note. */
export function notMeasured(id: string, label: string, unit: string, reason: string, target?: Target): Figure {
  return { id, label, value: null, unit, ...(target ? { target } : {}), verdict: 'NOT MEASURED', note: reason };
}

export const atLeast = (value: number, text: string): Target => ({ op: '>=', value, text });
export const below = (value: number, text: string): Target => ({ op: '<', value, text });
export const atMost = (value: number, text: string): Target => ({ op: '<=', value, text });

/** Fixed-precision number for tables: more decimals for small values. */
export function fmt(v: number | null | undefined, digits?: number): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const d = digits ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : Math.abs(v) >= 1 ? 2 : 3);
  return v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A reason shortened for a table cell: one line, at most `max` characters. */
export function short(reason: string, max = 180): string {
  const one = reason.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
