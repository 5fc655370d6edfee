// vitest global setup: one throwaway PostgreSQL cluster for the whole run instead of an initdb per test
// file. It is started only when a test file first asks for it (a run without PostgreSQL tests starts
// none), through a loopback endpoint whose address the test files get with inject('postgresBroker');
// each file still gets fresh databases of its own on it (test/support/postgres.ts). Removed at the end.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { postgresBin, startTestCluster, type TestCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** GET it for the connection URL of the run's shared cluster (absent: each file starts its own). */
    postgresBroker?: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.SANDBOX_TEST_DATABASE_URL || !postgresBin()) return undefined;
  let cluster: Promise<TestCluster> | undefined;
  const server = createServer((_req, res) => {
    // two files at a time, each with several instances and pools: room for both
    cluster ??= startTestCluster(400);
    cluster.then(
      (c) => res.writeHead(200, { 'content-type': 'text/plain' }).end(c.url),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('postgresBroker', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const started = await cluster?.catch(() => undefined);
    await started?.stop();
  };
}
