// Sandboxes on PostgreSQL for the load rows: a throwaway cluster (the same code the tests start theirs
// with), one database served by one instance and another served by two instances of one shared
// sandbox. Without PostgreSQL on the machine the rows are skipped with the reason.

import { startTestDatabase, type TestDatabase } from '../../test/support/postgres.js';
import type { ChildGroup } from './children.js';
import { startSandboxChild, type SandboxChild } from './sandbox.js';

export interface PostgresSandboxes {
  /** One instance on a database of its own. */
  one: SandboxChild;
  /** Two instances of one shared sandbox on another database (same settings, same public URL). */
  two: [SandboxChild, SandboxChild];
  /** Stops the cluster (the instances are children of the section's group). */
  stop(): Promise<void>;
}

/** Starts the cluster and the three instances; throws, saying why, when PostgreSQL is not installed. */
export async function startPostgresSandboxes(group: ChildGroup): Promise<PostgresSandboxes> {
  const db: TestDatabase = await startTestDatabase();
  try {
    const one = await startSandboxChild(group, {
      name: 'sandbox (PostgreSQL, one instance)',
      args: ['--store', db.url],
    });
    const pairUrl = await db.another();
    const first = await startSandboxChild(group, {
      name: 'sandbox (PostgreSQL, instance 1 of 2)',
      args: ['--store', pairUrl],
    });
    // every instance of one shared sandbox names the same public URL: the first one's address stands in for a load balancer's
    const second = await startSandboxChild(group, {
      name: 'sandbox (PostgreSQL, instance 2 of 2)',
      args: ['--store', pairUrl],
      env: { SANDBOX_PUBLIC_URL: first.baseUrl },
    });
    return { one, two: [first, second], stop: () => db.stop() };
  } catch (err) {
    await db.stop();
    throw err;
  }
}
