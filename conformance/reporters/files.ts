// Writes the JUnit, JSON and HTML reports into the report directory when a run ends.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HarnessEvent, Reporter } from '../events.js';
import { htmlReport } from './html.js';
import { jsonReport } from './json.js';
import { junitReport } from './junit.js';

export const REPORT_FILES = { junit: 'junit.xml', json: 'report.json', html: 'report.html' } as const;

export function fileReporter(dir: string, onWritten?: (files: string[]) => void): Reporter {
  return (e: HarnessEvent) => {
    if (e.type !== 'run-end') return;
    mkdirSync(dir, { recursive: true });
    const files = [
      [REPORT_FILES.junit, junitReport],
      [REPORT_FILES.json, jsonReport],
      [REPORT_FILES.html, htmlReport],
    ] as const;
    const written: string[] = [];
    const problems: string[] = [];
    // each report is rendered on its own: one that cannot be rendered never keeps the others from being written
    for (const [name, render] of files) {
      const file = path.join(dir, name);
      try {
        writeFileSync(file, render(e.result));
        written.push(file);
      } catch (err) {
        problems.push(`${name}: ${(err as Error).message}`);
      }
    }
    onWritten?.(written);
    if (problems.length) throw new Error(`report writing failed (${problems.join('; ')})`);
  };
}
