// --write-baseline: when a run ends, writes its `must` failures as a baseline file (baseline.ts).

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { baselineFileText } from '../baseline.js';
import type { HarnessEvent, Reporter } from '../events.js';

export function baselineWriter(file: string): Reporter {
  return (e: HarnessEvent) => {
    if (e.type !== 'run-end') return;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, baselineFileText(e.result));
  };
}
