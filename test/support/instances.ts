// Instances of one shared sandbox as child processes of a test: `node --import tsx src/cli.ts --store
// <url>` on free ports, with the settings every instance must share passed through the environment;
// the addresses come from the lines the CLI prints. A test can stop one politely or `kill -9` it.

import { spawn, type ChildProcess } from 'node:child_process';

export interface Instance {
  name: string;
  /** This instance's own main address and anonymous MCP endpoint (not the load balancer's). */
  listenUrl: string;
  anonMcpUrl: string;
  proc: ChildProcess;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** SIGKILL: no shutdown code runs; resolves when the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL if it lingers. */
  stop(): Promise<void>;
}

export interface InstanceSettings {
  store: string;
  publicUrl: string;
  adminToken: string;
  /** More CLI flags, the same on every instance (e.g. --no-demo). */
  args?: string[];
}

const STARTUP_MS = 90_000;

function gone(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** Starts one instance and resolves once it prints where it listens (it serves from then on). */
export function startInstance(name: string, s: InstanceSettings): Promise<Instance> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli.ts',
      '--store',
      s.store,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--anon-port',
      '0',
      ...(s.args ?? []),
    ],
    {
      cwd: process.cwd(),
      env: {
        ...process.env,
        SANDBOX_ADMIN_TOKEN: s.adminToken,
        SANDBOX_PUBLIC_URL: s.publicUrl,
        SANDBOX_DATABASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const line = (label: string) => out.match(new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm'))?.[1];
  return new Promise<Instance>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`instance ${name} did not start within ${STARTUP_MS / 1000} s: ${out.slice(-2000)}`));
    }, STARTUP_MS);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited (${code ?? signal}) before it served: ${out.slice(-2000)}`));
    };
    proc.once('exit', onExit);
    const onData = () => {
      const listenUrl = line('this instance');
      const anonMcpUrl = line('anonymous MCP');
      if (!listenUrl || !anonMcpUrl) return;
      clearTimeout(timer);
      proc.off('exit', onExit);
      proc.stdout.off('data', onData);
      resolve({
        name,
        listenUrl,
        anonMcpUrl,
        proc,
        output: () => out,
        async kill9() {
          proc.kill('SIGKILL');
          await gone(proc);
        },
        async stop() {
          proc.kill('SIGTERM');
          const lingering = setTimeout(() => proc.kill('SIGKILL'), 5_000);
          await gone(proc);
          clearTimeout(lingering);
        },
      });
    };
    proc.stdout.on('data', onData);
  });
}

/**
 * One instance in a child process, started the way an operator starts one (the admin token, public URL and
 * database through the environment, or the database with `--store` unless `viaEnv`), resolved with its
 * address once it listens. `env` adds settings (e.g. SANDBOX_SNAPSHOT_EVERY).
 */
export function spawnCliInstance(
  url: string,
  base: { adminToken: string; publicUrl: string },
  { viaEnv = true, env = {} }: { viaEnv?: boolean; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; base: string }> {
  const store = viaEnv ? [] : ['--store', url];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', ...store, '--port', '0', '--anon-port', '0'],
    {
      env: {
        ...process.env,
        SANDBOX_ADMIN_TOKEN: base.adminToken,
        SANDBOX_PUBLIC_URL: base.publicUrl,
        ...(viaEnv ? { SANDBOX_DATABASE_URL: url } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /this instance\s+(\S+)/.exec(out);
      if (m) resolve({ child, base: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`instance exited (${code}) before it listened: ${out}`)));
  });
}
