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
      [REPORT_FILES.junit, junitReport(e.result)],
      [REPORT_FILES.json, jsonReport(e.result)],
      [REPORT_FILES.html, htmlReport(e.result)],
    ].map(([name, text]) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    });
    onWritten?.(files);
  };
}
