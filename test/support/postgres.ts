// A throwaway PostgreSQL for tests: initdb in a temporary directory owned by the `postgres` user (the
// server refuses to run as root), pg_ctl on a free loopback port, and everything removed afterwards.
// SANDBOX_TEST_DATABASE_URL points the tests at an existing server instead; with neither binaries
// nor that variable the tests skip with a message saying how to run them.

import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { freePort } from './ports.js';
import type { ConfigInput } from '../../src/config.js';
import { startSandbox, type RunningSandbox, type StoreHooks } from '../../src/main.js';
import { ADMIN_TOKEN } from './sandbox.js';

export interface TestDatabase {
  /** A connection URL of a fresh, empty database. */
  url: string;
  /** Another fresh, empty database on the same server. */
  another(): Promise<string>;
  stop(): Promise<void>;
}

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or null. */
export function postgresBin(): string | null {
  if (!existsSync(ROOT)) return null;
  const versions = readdirSync(ROOT)
    .filter((v) => existsSync(path.join(ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(ROOT, versions[0], 'bin') : null;
}

/** Why the PostgreSQL tests cannot run here, or null when they can. */
export function postgresUnavailable(): string | null {
  if (process.env.SANDBOX_TEST_DATABASE_URL || postgresBin()) return null;
  return "PostgreSQL tests skipped: no server binaries under /usr/lib/postgresql/<version>/bin and no SANDBOX_TEST_DATABASE_URL. Install Debian's `postgresql` package (.ci/run does) or set SANDBOX_TEST_DATABASE_URL=postgres://user:password@host:port/db of a database the tests may fill.";
}

let counter = 0;

/** A database of its own on the given server (each test file gets a clean one). */
async function createDatabase(serverUrl: string): Promise<string> {
  const name = `sandbox_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A throwaway cluster: its server's connection URL (of the `postgres` database) and how to remove it. */
export interface TestCluster {
  url: string;
  stop(): Promise<void>;
}

/** initdb in a temporary directory and a server on a free loopback port; `stop` removes both. */
export async function startTestCluster(maxConnections = 200): Promise<TestCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error(postgresUnavailable() ?? 'no PostgreSQL');
  const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  // initdb and postgres refuse to run as root: hand the directory to the postgres user
  const run = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(bin, cmd), args, { stdio: 'pipe' });
  if (asRoot) {
    const { uid, gid } = {
      uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
      gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
    };
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const user = asRoot ? 'postgres' : userInfo().username;
  run('initdb', ['-D', data, '-U', user, '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=${maxConnections}`;
  run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://${user}@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The cluster every test file of this vitest run shares, started on first demand by the global setup
 * (test/support/postgres-global.ts), or null outside such a run (a single file run by another config, the
 * bench's processes).
 */
async function sharedCluster(): Promise<string | null> {
  let broker: string | undefined;
  try {
    broker = inject('postgresBroker');
  } catch {
    return null; // not inside a vitest worker
  }
  if (!broker) return null;
  const answer = await fetch(broker);
  const text = await answer.text();
  if (!answer.ok) throw new Error(`the shared test PostgreSQL did not start: ${text}`);
  return text;
}

/**
 * A fresh database for a test file: on the server SANDBOX_TEST_DATABASE_URL names, else on the cluster this
 * vitest run shares (each file its own databases on it), else on a throwaway cluster of its own that `stop`
 * removes.
 */
export async function startTestDatabase(): Promise<TestDatabase> {
  const external = process.env.SANDBOX_TEST_DATABASE_URL ?? (await sharedCluster());
  if (external)
    return { url: await createDatabase(external), another: () => createDatabase(external), stop: async () => {} };
  const cluster = await startTestCluster();
  return {
    url: await createDatabase(cluster.url),
    another: () => createDatabase(cluster.url),
    stop: () => cluster.stop(),
  };
}

/**
 * For an instance that must notice another's lost webhook attempt: it takes one for lost 1 s (not 10 s) past
 * the receiver timeout, looking every 0.5 s (not 2 s). Only the wait shrinks: the attempt is still recorded
 * as failed and retried on the schedule, after the 15 s timeout as before (D-138's defaults stay the product's).
 */
export const QUICK_LOST_ATTEMPTS: StoreHooks = { replicaTiming: { lostAttemptGraceMs: 1_000, sweepMs: 500 } };

/** Starts instances of one shared sandbox on a database, collecting what its store reports failing (a test expects none). */
export function sharedInstances(publicUrl: string, settings: ConfigInput & StoreHooks = {}) {
  const failures: Error[] = [];
  const start = (url: string, extra: ConfigInput & StoreHooks = {}): Promise<RunningSandbox> =>
    startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      publicUrl,
      store: url,
      onStoreFailure: (e) => failures.push(e),
      ...settings,
      ...extra,
    });
  return { failures, start };
}

export type SharedInstances = ReturnType<typeof sharedInstances>;

/** A throwaway database and two instances of one shared sandbox on it. */
export interface SharedPair {
  db: TestDatabase;
  a: RunningSandbox;
  b: RunningSandbox;
}

/**
 * Inside a describe: before its tests, a throwaway database and two instances on it, started together and
 * handed to `got`; after them, the instances `current()` names (by default those two; a test that restarts
 * one names the one now running) closed, the database stopped, and no store failure reported.
 */
export function twoSharedInstances(
  shared: SharedInstances,
  got: (pair: SharedPair) => void,
  current?: () => (RunningSandbox | undefined)[],
): void {
  let db: TestDatabase | undefined;
  let started: RunningSandbox[] = [];
  beforeAll(async () => {
    db = await startTestDatabase();
    started = await Promise.all([shared.start(db.url), shared.start(db.url)]);
    got({ db, a: started[0], b: started[1] });
  }, 120_000);
  afterAll(async () => {
    const running = (current?.() ?? started).filter((s): s is RunningSandbox => s !== undefined);
    await Promise.all(running.map((s) => s.close()));
    await db?.stop();
    expect(shared.failures).toEqual([]);
  });
}

/**
 * Inside a describe: a throwaway cluster for its tests, each of which takes a database of its own (`database`) and
 * instances on it (`start`, or two at once with `pair`); after them, every instance started so closed, the cluster
 * stopped, and no store failure reported.
 */
export function instancesPerTest(shared: SharedInstances) {
  let db: TestDatabase | undefined;
  const running: RunningSandbox[] = [];
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(running.map((sb) => sb.close()));
    await db?.stop();
    expect(shared.failures).toEqual([]);
  });
  const database = () => db!.another();
  const start = async (url: string, extra: ConfigInput & StoreHooks = {}) => {
    const sb = await shared.start(url, extra);
    running.push(sb);
    return sb;
  };
  /** A database of its own and two instances on it, started together. */
  const pair = async (extra: ConfigInput & StoreHooks = {}) => {
    const url = await database();
    const [a, b] = await Promise.all([start(url, extra), start(url, extra)]);
    return { url, a, b };
  };
  return { database, start, pair };
}

/** The rows of one SQL text run on its own connection to the database at `url` (several statements: the last one's). */
export async function sqlRows<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const pgc = new pg.Client({ connectionString: url });
  await pgc.connect();
  try {
    return (await pgc.query<R>(text)).rows;
  } finally {
    await pgc.end();
  }
}
