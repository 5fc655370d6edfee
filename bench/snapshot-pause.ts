// What calls wait for while a shared sandbox takes a snapshot, in process and side by side with another
// checkout: both build the same state through their own app (in-memory store, the same calls), then take
// turns doing the synchronous part of a snapshot seven times: the other checkout's `exportState` and its whole
// JSON (what calls waited for before snapshots were stored by part), and this one's `exportState` copy and the
// JSON of its global part (what they wait for now, but for the first 8 ms slice). Medians; less noisy than
// `bench/snapshot-parts.ts`, which measures the same through PostgreSQL and HTTP.
// `--copy`: both checkouts take turns doing only the copy a snapshot's export makes while calls wait
// (`exportState` with `lazy`, D-151), seven times, one more submit of each tenant between two: what an instance
// that has written snapshots before waits for at its next one (D-157).
//
// `--webhooks`: every tenant has a webhook receiver (in process, answering 200) and its screenings scored, so
// each request has a delivery with an attempt.
//
//   npx tsx bench/snapshot-pause.ts --base tmp/base [--tenants 5000] [--requests 4] [--copy] [--webhooks]

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '4' },
    base: { type: 'string' },
    copy: { type: 'boolean', default: false },
    // every tenant's screenings delivered to a webhook receiver in process (the deliveries are part of the copy)
    webhooks: { type: 'boolean', default: false },
  },
});
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const HOOK = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const TENANTS = Number(values.tenants);
const REQUESTS = Number(values.requests);
if (!values.base) throw new Error('--base <checkout> is required (see bench/README.md)');

type Exported = { tenants: Record<string, unknown> } & Record<string, unknown>;
interface Built {
  exportState(): Exported;
  /** The copy alone, its long lists made when read (a snapshot's, D-151). */
  lazyExport(): Exported;
  /** One more submit of each tenant. */
  more(): Promise<void>;
}

/** The checkout at `root` with TENANTS tenants of REQUESTS screening requests each, made through its app. */
async function build(root: string): Promise<Built> {
  const at = (file: string) => import(pathToFileURL(path.join(root, file)).href);
  const { createApp } = await at('src/app.ts');
  const { resolveConfig } = await at('src/config.ts');
  const { createCore } = await at('src/domain/core.ts');
  const { openMemoryStore } = await at('src/store/memory.ts');
  const snap = await at('src/domain/snapshot.ts');
  const admin = 'sat_snapshot_pause_bench';
  const core: unknown = await createCore(
    resolveConfig({ adminToken: admin, noRateLimits: true, corpusSize: 2000 }),
    openMemoryStore,
  );
  const app = createApp(core) as { fetch(req: Request): Promise<Response> };
  const call = async (p: string, body: unknown, key = admin, method = 'POST') => {
    const res = await app.fetch(
      new Request(`http://bench${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    const json = (await res.json()) as { apiKey: string };
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const keys: string[] = [];
  for (let i = 0; i < TENANTS; i++) {
    const hook = values.webhooks ? { webhookUrl: HOOK, webhookSecret: 'whsec_snapshot_pause_bench' } : {};
    const made = (await call('/sandbox/v1/tenants', { planTier: 'scale', ...hook })) as {
      apiKey: string;
      tenantId?: string;
    };
    keys.push(made.apiKey);
    // a month's credits of the plan are 2,000: a longer history is topped up first
    if (REQUESTS > 1_000)
      await call(`/sandbox/v1/tenants/${made.tenantId}`, { screeningCredits: REQUESTS + 1_000 }, admin, 'PATCH');
  }
  let n = 0;
  const round = async () => {
    for (const key of keys)
      await call(
        '/api/screening/v1/screen',
        {
          idempotencyKey: `pause-${n++}`,
          candidate: { kind: 'structured', fullName: 'Ayu Lestari', skills: ['TypeScript'], experienceYears: 5 },
          jobSpec: { title: 'Backend Engineer', mustHaves: ['TypeScript'] },
        },
        key,
      );
  };
  for (let r = 0; r < REQUESTS; r++) await round();
  if (values.webhooks) {
    // scored (the pipeline's steps are on the sandbox clock), so each request has a delivery; then delivered
    await call('/sandbox/v1/clock/advance', { seconds: 120 });
    const hooks = (core as { webhooks: { list(): { inFlight: boolean }[] } }).webhooks;
    do await new Promise((r) => setTimeout(r, 100));
    while (hooks.list().some((d) => d.inFlight));
  }
  return {
    exportState: () => snap.exportState(core) as Exported,
    lazyExport: () => snap.exportState(core, { lazy: true }) as Exported,
    more: round,
  };
}

const base = await build(path.resolve(values.base));
const mine = await build(process.cwd());
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
if (values.copy) {
  const took: [number[], number[]] = [[], []];
  for (let k = 0; k < 7; k++)
    for (const [i, b] of [base, mine].entries()) {
      await b.more();
      const t = performance.now();
      b.lazyExport();
      took[i].push(performance.now() - t);
    }
  console.log(
    `${TENANTS} tenants × ${REQUESTS} requests, the copy of a snapshot's export (lazy), a submit each between two`,
  );
  console.log(`  ${values.base}: ${ms(took[0])} ms, median ${median(took[0]).toFixed(0)} ms`);
  console.log(`  this checkout: ${ms(took[1])} ms, median ${median(took[1]).toFixed(0)} ms`);
  receiver.close();
  process.exit(0);
}
const before: number[] = [];
const after: number[] = [];
let mb = 0;
for (let k = 0; k < 7; k++) {
  let t = performance.now();
  mb = JSON.stringify({ replica: {}, state: base.exportState() }).length / 1024 / 1024;
  before.push(performance.now() - t);
  t = performance.now();
  const { tenants: _tenants, ...global } = mine.exportState();
  JSON.stringify({ replica: {}, state: global });
  after.push(performance.now() - t);
}
console.log(`${TENANTS} tenants × ${REQUESTS} requests, ${mb.toFixed(1)} MB of JSON`);
console.log(`  ${values.base}: export and whole JSON ${ms(before)} ms, median ${median(before).toFixed(0)} ms`);
console.log(`  this checkout: export and global JSON ${ms(after)} ms, median ${median(after).toFixed(0)} ms`);
receiver.close();
