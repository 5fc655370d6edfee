// The machine-readable report: the whole run result as JSON.

import type { RunResult } from '../events.js';

export function jsonReport(r: RunResult): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}
