// The machine-readable report: the whole run result as JSON.

import type { RunResult } from '../events.js';

/** BigInts (a target may make a property generate one) become strings; nothing the result holds can make it throw. */
export function jsonReport(r: RunResult): string {
  return `${JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v), 2)}\n`;
}
