// An open loop: `count` calls, one every `gapMs` from now whether or not the earlier ones answered. Each call is
// started at its time or, when this process was held past it (its event loop blocked, or its CPU taken by other
// processes), as soon as it can; how late the latest one started is this process's own delay, which the calls'
// latencies, timed from their start, do not include.

export async function openLoop(
  count: number,
  gapMs: number,
  send: (i: number) => Promise<void>,
): Promise<{ maxLateMs: number }> {
  const t0 = performance.now();
  const calls: Promise<void>[] = [];
  let maxLateMs = 0;
  for (let i = 0; i < count; i++) {
    const due = t0 + i * gapMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    maxLateMs = Math.max(maxLateMs, performance.now() - due);
    calls.push(send(i));
  }
  await Promise.all(calls);
  return { maxLateMs };
}
