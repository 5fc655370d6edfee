// A stand-in sandbox instance for the restart test, run as a child process: it submits with fresh
// keys in a loop and claims the queued pipeline work, printing each acknowledgement only after the
// store committed it, until it is killed.

import { claimPipelineJobs } from '../../src/store/postgres/outbox.js';
import { openPool } from '../../src/store/postgres/pool.js';
import { admit } from '../../src/store/postgres/screening.js';

const [url, tenantId] = process.argv.slice(2);
const db = openPool(url, 4);
for (let i = 0; ; i++) {
  const key = `restart-${i}`;
  const out = await admit(db, tenantId, { idempotencyKey: key, candidate: { kind: 'structured', fullName: 'Ana' }, jobSpec: { title: 'Dev', mustHaves: [] } }, Date.now());
  if (out.kind === 'created') process.stdout.write(`ack ${key} ${out.requestId}\n`);
  for (const id of await claimPipelineJobs(db, 'doomed', 1)) process.stdout.write(`claimed ${id}\n`);
}
