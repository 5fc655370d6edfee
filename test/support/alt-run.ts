// Runs the conformance harness against the alternate deployment (test/alt-deployment) in keys-only mode:
// the deployment posts every tenant's webhooks to a free port on which the harness's receiver listens.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runConformance, type RawOptions, type RunResult } from '../../conformance/index.js';
import { startAltDeployment, type AltOptions } from '../alt-deployment/index.js';
import { freePort } from './ports.js';

// the bench's harness worker takes its free port from here too
export { freePort };

export interface AltRun {
  result: RunResult;
  reportDir: string;
}

/** Starts the deployment with `violations` (and its other options, e.g. `shapeStyle` for its open shapes or `reviewer`), runs the harness on its keys-only profile, stops it. */
export async function runAgainstAlt(
  violations: string[],
  options: RawOptions = {},
  altOptions: Omit<AltOptions, 'violations' | 'webhookUrl'> = {},
): Promise<AltRun> {
  const port = await freePort();
  const alt = await startAltDeployment({ ...altOptions, violations, webhookUrl: `http://127.0.0.1:${port}/alt-hooks` });
  const reportDir = mkdtempSync(path.join(tmpdir(), 'conformance-alt-'));
  try {
    const result = await runConformance({
      ...alt.profile,
      webhookListen: `127.0.0.1:${port}`,
      seed: 20261123,
      runs: 3,
      reportDir,
      progress: false,
      ...options,
    });
    return { result, reportDir };
  } finally {
    await alt.stop();
  }
}
