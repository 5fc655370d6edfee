// Plain-text rendering of a failure's evidence (request, response, why, counterexample, replay), shared
// by the JUnit and HTML reports.

import type { Failure } from '../failure.js';
import type { Exchange } from '../target/http.js';

const MAX_BODY = 4000;

const clip = (s: string) =>
  s.length > MAX_BODY ? `${s.slice(0, MAX_BODY)}… (${s.length - MAX_BODY} more characters)` : s;

/** Any value as report text: `undefined`, functions, cycles and BigInts (JSON.stringify's gaps) included. */
/** A value JSON cannot spell (undefined, a function, a symbol, a cycle), named without `[object Object]`. */
const notJson = (value: unknown): string =>
  typeof value === 'symbol'
    ? value.toString()
    : typeof value === 'function'
      ? `function ${value.name || '(anonymous)'}`
      : Object.prototype.toString.call(value);

export function valueText(value: unknown): string {
  if (value === undefined) return '(undefined)';
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v), 2);
    return clip(text ?? notJson(value));
  } catch (e) {
    return clip(`${notJson(value)} (not JSON: ${(e as Error).message})`);
  }
}

function pretty(body: string | undefined, json?: unknown): string {
  if (json !== undefined) return valueText(json);
  return clip(body ?? '');
}

export function exchangeText(ex: Exchange): string {
  const req = ex.request;
  const lines = [`> ${req.method} ${req.url}`];
  for (const [k, v] of Object.entries(req.headers)) lines.push(`> ${k}: ${v}`);
  if (req.body !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(req.body);
    } catch {
      parsed = undefined;
    }
    lines.push(
      '>',
      ...pretty(req.body, parsed)
        .split('\n')
        .map((l) => `> ${l}`),
    );
  }
  if (ex.response) {
    lines.push(`< ${ex.response.status}`);
    for (const [k, v] of Object.entries(ex.response.headers)) lines.push(`< ${k}: ${v}`);
    lines.push(
      '<',
      ...pretty(ex.response.body, ex.response.json)
        .split('\n')
        .map((l) => `< ${l}`),
    );
  } else lines.push(`! ${ex.error ?? 'no response'}`);
  lines.push(`(${ex.durationMs} ms)`);
  return lines.join('\n');
}

export function failureText(f: Failure): string {
  const parts = [
    `${f.requirement}: ${f.why}${f.occurrences && f.occurrences > 1 ? ` (seen ${f.occurrences} times)` : ''}`,
    `check: ${f.check}`,
  ];
  const cx = f.counterexample;
  if (cx) {
    parts.push(
      `counterexample (${cx.property}${cx.numShrinks !== undefined ? `, shrunk ${cx.numShrinks} times` : ''}${cx.regressionFile ? `, saved in ${cx.regressionFile}` : ''}):`,
      valueText(cx.value),
    );
    parts.push(`seed ${cx.seed}${cx.path ? `, path ${cx.path}` : ''}`);
  }
  if (f.replay) parts.push(`replay: ${f.replay}`);
  f.evidence.forEach((ex, i) => parts.push(`--- exchange ${i + 1} of ${f.evidence.length}`, exchangeText(ex)));
  return parts.join('\n');
}
