// The parent side of an in-process measurement: forks a worker module under tsx (optionally with
// --expose-gc), waits for its single result message within a time bound, and always stops it.

import { ROOT } from './sandbox.js';
import type { ChildGroup } from './children.js';
import type { WorkerMessage } from '../workers/ipc.js';

export async function runWorker<T>(
  group: ChildGroup,
  name: string,
  module: string,
  args: unknown,
  { timeoutMs, exposeGc = false }: { timeoutMs: number; exposeGc?: boolean },
): Promise<T> {
  const child = group.fork(name, `${ROOT}bench/workers/${module}`, [JSON.stringify(args)], {
    cwd: ROOT,
    execArgv: exposeGc ? ['--expose-gc'] : [],
  });
  try {
    return await new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} did not finish within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      child.proc.once('message', (msg: WorkerMessage<T>) => {
        clearTimeout(timer);
        if (msg.ok) resolve(msg.result);
        else reject(new Error(`${name} failed: ${msg.error.split('\n').slice(0, 3).join(' ')}`));
      });
      child.proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) without a result: ${child.tail().trim().slice(-800)}`));
      });
    });
  } finally {
    await group.stop(child);
  }
}
