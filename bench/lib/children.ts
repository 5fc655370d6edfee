// Child processes the benchmarks start (sandbox, Prism, bare server, workers), tracked so that every
// one of them is stopped on success, failure, timeout, Ctrl-C or an uncaught error. Each child leads
// its own process group, so wrappers such as tsx and Prism's forked server go down with it.

import { fork, spawn, type ChildProcess, type ForkOptions, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

const TAIL_BYTES = 8192;

export interface Child {
  name: string;
  proc: ChildProcess;
  /** The last few KiB of stdout and stderr, for error messages. */
  tail(): string;
  exited(): boolean;
}

const live = new Set<ChildProcess>();

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Process ids of the children still running (for tests that check nothing was left behind). */
export function liveChildren(): number[] {
  return [...live].filter((p) => p.exitCode === null && p.signalCode === null).map((p) => p.pid!);
}

let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // 'exit' handlers must be synchronous: SIGKILL whatever is still alive.
  process.on('exit', () => {
    for (const p of live) killGroup(p, 'SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      for (const p of live) killGroup(p, 'SIGKILL');
      process.exit(130);
    });
  }
}

function track(name: string, proc: ChildProcess): Child {
  hookExit();
  live.add(proc);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  proc.once('exit', () => live.delete(proc));
  // a child that fails to start must not crash the runner with an unhandled 'error'
  proc.on('error', (err) => keep(Buffer.from(`\n[spawn error] ${err.message}\n`)));
  return { name, proc, tail: () => tail, exited: () => proc.exitCode !== null || proc.signalCode !== null };
}

/** The children one section starts; `stopAll()` ends them, politely first. */
export class ChildGroup {
  private readonly children: Child[] = [];

  spawn(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
    const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
    const child = track(name, proc);
    this.children.push(child);
    return child;
  }

  /** A Node child running a TypeScript module through tsx, with an IPC channel. */
  fork(name: string, modulePath: string, args: string[], options: ForkOptions = {}): Child {
    const proc = fork(modulePath, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
      ...options,
      execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    });
    const child = track(name, proc);
    this.children.push(child);
    return child;
  }

  async stop(child: Child, graceMs = 3000): Promise<void> {
    if (child.exited()) return;
    const gone = new Promise<void>((resolve) => child.proc.once('exit', () => resolve()));
    killGroup(child.proc, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.proc, 'SIGKILL'), graceMs);
    await Promise.race([gone, new Promise((r) => setTimeout(r, graceMs + 2000))]);
    clearTimeout(timer);
    // the group may hold grandchildren (tsx -> node, prism -> forked server) even after the leader exits
    killGroup(child.proc, 'SIGKILL');
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.children.map((c) => this.stop(c)));
    for (const c of this.children) {
      if (c.proc.pid !== undefined) {
        try {
          process.kill(-c.proc.pid, 'SIGKILL');
        } catch {
          // group already empty
        }
      }
    }
    this.children.length = 0;
  }
}

/** A currently free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Polls `probe` until it returns a value (not undefined), bounded in time; fails early, with the
 * child's output, when the child exits first.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 100, child }: { timeoutMs: number; intervalMs?: number; child?: Child },
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError = '';
  while (performance.now() < deadline) {
    if (child?.exited()) {
      throw new Error(
        `${child.name} exited (code ${child.proc.exitCode ?? child.proc.signalCode}) while waiting for ${what}: ${child.tail().trim().slice(-1500)}`,
      );
    }
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const out = child ? `; output: ${child.tail().trim().slice(-1000)}` : '';
  throw new Error(
    `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}${out}`,
  );
}
