// The child side of an in-process measurement: reads its JSON arguments, runs, reports one message
// to the parent over IPC and exits, so a measurement's heap never leaks into the next one.

export type WorkerMessage<T> = { ok: true; result: T } | { ok: false; error: string };

export function runAsWorker<A, T>(fn: (args: A) => Promise<T>): void {
  const args = JSON.parse(process.argv[2] ?? '{}') as A;
  const done = (msg: WorkerMessage<T>) => {
    if (process.send) process.send(msg, () => process.exit(msg.ok ? 0 : 1));
    else {
      console.log(JSON.stringify(msg));
      process.exit(msg.ok ? 0 : 1);
    }
  };
  fn(args).then(
    (result) => done({ ok: true, result }),
    (err) => done({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
}

/** Forces a full collection when the child runs with --expose-gc; says whether it could. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** Lets queued setImmediate work (the screening pipeline) run. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A small seeded generator (mulberry32), so sampled positions repeat from run to run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
