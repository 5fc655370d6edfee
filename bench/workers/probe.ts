// A steady low-rate stream of one tenant's calls (open loop: one call every 1/rate s whether or not
// the previous one answered), timed in a process of its own so a load generator running in the parent
// never delays the timing. Reports every call's latency and status.

import { openLoop } from '../lib/openLoop.js';
import { runAsWorker } from './ipc.js';

export interface ProbeArgs {
  url: string;
  apiKey: string;
  ratePerS: number;
  durationS: number;
}

export interface ProbeResult {
  latenciesMs: number[];
  failures: string[];
  /** How long each failed call took until it failed: one that timed out waited at least this long. */
  failedAfterMs: number[];
  /**
   * The most any call was sent after its time: this process's own delay (a starved or blocked prober), which its
   * latencies do not include; the server is not what held a call that was sent late.
   */
  maxLateMs: number;
}

runAsWorker<ProbeArgs, ProbeResult>(async ({ url, apiKey, ratePerS, durationS }) => {
  const latenciesMs: number[] = [];
  const failures: string[] = [];
  const failedAfterMs: number[] = [];
  const gapMs = 1000 / ratePerS;
  const count = Math.max(1, Math.round(durationS * ratePerS));
  // three calls untimed first: this process's first fetch loads its HTTP client and opens its connection (47 to 83 ms
  // against a server answering at once, the next two 2 to 10 ms, later ones about 2), which made a few of the slowest
  // calls of every run, alone or not: this process's start-up, not the server's latency (a failure among them is the
  // timed calls' to report)
  for (let i = 0; i < 3; i++)
    await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(10_000) })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined);
  const { maxLateMs } = await openLoop(count, gapMs, async () => {
    const start = performance.now();
    try {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (res.status === 200) return void latenciesMs.push(performance.now() - start);
      failures.push(`HTTP ${res.status}`);
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
    }
    failedAfterMs.push(performance.now() - start);
  });
  return { latenciesMs, failures, failedAfterMs, maxLateMs };
});
