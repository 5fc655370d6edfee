// Snapshots of the state (D-137), through the real HTTP app in process (every step of a request runs):
// a sandbox exported at any point between calls, carried through JSON and imported into a fresh core of
// the same settings answers every later call as the original does (statuses, bodies, the deliveries'
// attempts and their times) and ends in the same state; one tenant exported, forgotten and imported again
// answers as before while the others are untouched; a snapshot of another format is refused.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appCaller,
  drawnSubmit,
  DRAWN_QUERIES,
  employerToolCall,
  Entropy,
  quiesce,
  withoutDurations,
} from './support/inProcess.js';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/config.js';
import { createCore, type Core } from '../src/domain/core.js';
import {
  exportState,
  exportTenant,
  exportTenants,
  forgetTenant,
  importState,
  importTenant,
  SNAPSHOT_FORMAT,
  type Snapshot,
} from '../src/domain/snapshot.js';
import { openMemoryStore, type MemoryHooks } from '../src/store/memory.js';
import type { ResumeWebhook, SendOutcome, SendWebhook } from '../src/domain/webhooks/sender.js';
import { deliveryView } from '../src/domain/webhooks/index.js';
import { gunzipSync } from 'node:zlib';
import { slicedGzip, slicedJson } from '../src/replication/slicedJson.js';
import { RequestCopy } from '../src/domain/screening/record.js';

const ADMIN = 'sat_snapshot_test_token';
/** The wall clock both cores read: sandbox time moves only by the advances the sequence makes. */
const REAL_NOW = Date.UTC(2026, 2, 2, 9, 30, 0);
const CURSOR_SECRET = Buffer.alloc(32, 7);

interface Sandbox {
  core: Core;
  entropy: Entropy;
  call: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number; body: unknown }>;
}

async function makeSandbox(hooks: Partial<MemoryHooks> = {}): Promise<Sandbox> {
  const entropy = new Entropy();
  const core = await createCore(
    resolveConfig({ adminToken: ADMIN, seedDemo: true, corpusSize: 60, publicUrl: 'http://sandbox.test' }),
    (deps) => {
      deps.ids.share('snap00', entropy.draw);
      return openMemoryStore(deps, { realNow: () => REAL_NOW, cursorSecret: CURSOR_SECRET, ...hooks });
    },
  );
  const app = createApp(core);
  const call = appCaller(app, ADMIN);
  return { core, entropy, call };
}

/** Lets the work a few tasks deferred run (answers settled, deferred first attempts). */
async function ticks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

// a receiver whose answer depends on the path only: /ok answers 200, anything else 500
let receiver: Server;
let hookBase = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const ok = req.url === '/ok' || req.url === '/slow';
      const answer = () => {
        res.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain' });
        res.end(ok ? 'received' : 'receiver failed');
      };
      if (req.url === '/slow') setTimeout(answer, 150);
      else answer();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

// ---- the calls a sequence is made of, as data; each names a tenant by its index among those made so far

type Op =
  | { t: 'tenant'; tier: 'free' | 'starter' | 'pro' | 'scale' }
  | { t: 'submit'; who: number; idem: number; cand: number; title: number }
  | { t: 'decide'; who: number; nth: number; decision: 'approved' | 'rejected' | 'edited' }
  | { t: 'advance'; seconds: number }
  | { t: 'advanceTenant'; who: number; seconds: number }
  | { t: 'webhook'; who: number; url: 'ok' | 'fail' | null }
  | { t: 'autoReview'; who: number; afterSeconds: number | null }
  | { t: 'apply'; who: number; job: number }
  | { t: 'search'; who: number; q: number }
  | { t: 'fault'; who: number | null; mode: 'webhook_failure' | 'status'; count: number }
  | { t: 'key'; who: number }
  | { t: 'revoke'; who: number }
  | { t: 'hook'; who: number; what: 'test' | 'rotate' | 'redeliver'; nth: number }
  | { t: 'mcp'; who: number; tool: 'draft_application' | 'talent_search' | 'hire'; arg: number }
  | {
      t: 'read';
      who: number;
      what: 'audit' | 'usage' | 'me' | 'deliveries' | 'logs' | 'tenant' | 'clock' | 'reviews' | 'tenants';
    };

const who = fc.nat(5);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('tenant' as const),
      tier: fc.constantFrom('free', 'starter', 'pro', 'scale'),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('submit' as const),
      who,
      idem: fc.nat(4),
      cand: fc.nat(2),
      title: fc.nat(3),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('decide' as const),
      who,
      nth: fc.nat(5),
      decision: fc.constantFrom('approved', 'rejected', 'edited'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('advance' as const), seconds: fc.constantFrom(1, 30, 61, 3600, 80 * 3600) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('advanceTenant' as const),
      who,
      seconds: fc.constantFrom(10, 61, 600, 40 * 86400),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('webhook' as const), who, url: fc.constantFrom('ok', 'fail', null) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('autoReview' as const),
      who,
      afterSeconds: fc.constantFrom(0, 30, 3600, null),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('apply' as const), who, job: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('search' as const), who, q: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('fault' as const),
      who: fc.option(who, { nil: null }),
      mode: fc.constantFrom('webhook_failure', 'status'),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('mcp' as const),
      who,
      tool: fc.constantFrom('draft_application', 'talent_search', 'hire'),
      arg: fc.nat(2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('hook' as const),
      who,
      what: fc.constantFrom('test', 'rotate', 'redeliver'),
      nth: fc.nat(5),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('key' as const), who }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('revoke' as const), who }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('read' as const),
      who,
      what: fc.constantFrom('audit', 'usage', 'me', 'deliveries', 'logs', 'tenant', 'clock', 'reviews', 'tenants'),
    }),
  },
);

/** The tenants a sequence made, with their keys (newest last), as the sequence itself saw them. */
interface World {
  tenants: { id: string; keys: string[] }[];
  jobs: string[];
}

async function run(sb: Sandbox, world: World, op: Op): Promise<{ status: number; body: unknown }> {
  const { call, core } = sb;
  const tenant = (i: number) => world.tenants[i % world.tenants.length];
  const key = (i: number) => tenant(i).keys.at(-1)!;
  switch (op.t) {
    case 'tenant': {
      const res = await call('POST', '/sandbox/v1/tenants', { planTier: op.tier });
      const b = res.body as { tenantId: string; apiKey: string };
      if (res.status === 201) world.tenants.push({ id: b.tenantId, keys: [b.apiKey] });
      return res;
    }
    case 'submit':
      return call('POST', '/api/screening/v1/screen', drawnSubmit(op), key(op.who));
    case 'decide': {
      const reqs = core.screening.list({ tenantId: tenant(op.who).id });
      if (reqs.length === 0) return call('GET', '/sandbox/v1/reviews/counts');
      const body =
        op.decision === 'edited'
          ? { decision: 'edited', reviewerId: 'rev_snap', editedScore: 55 }
          : { decision: op.decision, reviewerId: 'rev_snap' };
      return call('POST', `/sandbox/v1/reviews/${reqs[op.nth % reqs.length].id}/decision`, body);
    }
    case 'advance':
      return call('POST', '/sandbox/v1/clock/advance', { seconds: op.seconds });
    case 'advanceTenant':
      return call('POST', `/sandbox/v1/tenants/${tenant(op.who).id}/clock/advance`, { seconds: op.seconds });
    case 'webhook':
      return call('PATCH', `/sandbox/v1/tenants/${tenant(op.who).id}`, {
        webhookUrl: op.url === null ? null : `${hookBase}/${op.url}`,
      });
    case 'autoReview':
      return call('PATCH', `/sandbox/v1/tenants/${tenant(op.who).id}`, {
        autoReview:
          op.afterSeconds === null
            ? null
            : { afterSeconds: op.afterSeconds, rule: 'approve_if_score_at_least', minScore: 50 },
      });
    case 'apply':
      return call(
        'POST',
        `/api/v1/jobs/${world.jobs[op.job % world.jobs.length]}/apply`,
        { candidate_name: 'Sari', candidate_email: 'sari@example.com', message: 'Hello, I would like to apply.' },
        key(op.who),
      );
    case 'search':
      return call('GET', `/api/v1/jobs?q=${DRAWN_QUERIES[op.q]}&limit=3`, undefined, key(op.who));
    case 'fault':
      return call('POST', '/sandbox/v1/faults', {
        mode: op.mode,
        ...(op.mode === 'status' ? { status: 503, path: '/api/v1/jobs' } : {}),
        count: op.count,
        ...(op.who === null ? {} : { tenantId: tenant(op.who).id }),
      });
    case 'hook': {
      const t = tenant(op.who);
      if (op.what === 'test') return call('POST', '/sandbox/v1/webhooks/test', { tenantId: t.id });
      if (op.what === 'rotate')
        return call('POST', `/sandbox/v1/tenants/${t.id}/webhook-secret/rotate`, { overlapSeconds: 600 });
      const mine = core.webhooks.list({ tenantId: t.id });
      if (mine.length === 0) return call('GET', `/sandbox/v1/webhooks/endpoints?tenantId=${t.id}`);
      return call('POST', `/sandbox/v1/webhooks/deliveries/${mine[op.nth % mine.length].id}/redeliver`);
    }
    case 'mcp': {
      // the employer tools and draft_application over the keyed MCP server (a stateless JSON-RPC POST)
      return call('POST', '/api/mcp', employerToolCall(op.tool, op.arg, world.jobs, DRAWN_QUERIES), key(op.who));
    }
    case 'key': {
      const t = tenant(op.who);
      const res = await call('POST', `/sandbox/v1/tenants/${t.id}/keys`, {});
      if (res.status === 201) t.keys.push((res.body as { apiKey: string }).apiKey);
      return res;
    }
    case 'revoke': {
      // no route of the control API revokes (the dashboard does): the domain call both sandboxes make
      const t = tenant(op.who);
      const keys = core.tenants.keysOf(t.id);
      if (t.keys.length < 2 || keys.length < 2) return call('GET', `/sandbox/v1/tenants/${t.id}`);
      core.tenants.revokeKey(t.id, keys[0].id);
      t.keys.shift();
      return call('GET', `/sandbox/v1/tenants/${t.id}`);
    }
    case 'read': {
      const t = tenant(op.who);
      switch (op.what) {
        case 'audit':
          return call('GET', '/api/screening/v1/audit?limit=3', undefined, key(op.who));
        case 'usage':
          return call('GET', '/api/screening/v1/usage', undefined, key(op.who));
        case 'me':
          return call('GET', '/api/v1/me', undefined, key(op.who));
        case 'deliveries':
          return call('GET', `/sandbox/v1/webhooks/deliveries?tenantId=${t.id}`);
        case 'logs':
          return call('GET', '/sandbox/v1/logs?limit=5');
        case 'tenant':
          return call('GET', `/sandbox/v1/tenants/${t.id}`);
        case 'reviews':
          return call('GET', '/sandbox/v1/reviews?limit=100');
        case 'tenants':
          return call('GET', '/sandbox/v1/tenants?limit=100');
        case 'clock':
          return call('GET', `/sandbox/v1/tenants/${t.id}/clock`);
      }
    }
  }
}

/** A fresh sandbox with three tenants of its own (beside the demo ones), and the jobs applies go to. */
async function start(hooks: Partial<MemoryHooks> = {}): Promise<{ sb: Sandbox; world: World }> {
  const sb = await makeSandbox(hooks);
  const world: World = { tenants: [], jobs: [] };
  for (const tier of ['pro', 'starter', 'free'] as const) await run(sb, world, { t: 'tenant', tier });
  // the first delivers, the second's receiver fails (retries), the third has nowhere to deliver
  await run(sb, world, { t: 'webhook', who: 0, url: 'ok' });
  await run(sb, world, { t: 'webhook', who: 1, url: 'fail' });
  const search = (await sb.call('GET', '/api/v1/jobs?limit=4', undefined, world.tenants[0].keys[0])).body as {
    jobs: { id: string }[];
  };
  world.jobs = search.jobs.map((j) => j.id);
  return { sb, world };
}

/** The twin of `sb`: a fresh core of the same settings, loaded from a JSON copy of sb's snapshot. */
async function twinOf(sb: Sandbox): Promise<Sandbox> {
  const snap = JSON.parse(JSON.stringify(exportState(sb.core))) as Snapshot;
  const twin = await makeSandbox();
  importState(twin.core, snap);
  twin.entropy.drawn = sb.entropy.drawn;
  return twin;
}

/** Runs `ops` on both, comparing every answer; the deliveries list is compared after each call too. */
async function runBoth(a: Sandbox, b: Sandbox, world: World, ops: readonly Op[]): Promise<void> {
  const worldB: World = structuredClone(world);
  for (const [i, op] of ops.entries()) {
    const ra = await run(a, world, op);
    const rb = await run(b, worldB, op);
    await quiesce(a.core);
    await quiesce(b.core);
    expect(withoutDurations(rb), `answer to call ${i} ${JSON.stringify(op)}`).toEqual(withoutDurations(ra));
    const da = await a.call('GET', '/sandbox/v1/webhooks/deliveries?limit=100');
    const db = await b.call('GET', '/sandbox/v1/webhooks/deliveries?limit=100');
    expect(withoutDurations(db), `deliveries after call ${i}`).toEqual(withoutDurations(da));
  }
}

const close = (...sbs: Sandbox[]) => sbs.forEach((s) => s.core.clock.clear());

/**
 * Runs `before` on a sandbox, makes its twin from a snapshot, lets `between` change the original (or not), runs
 * `after` on both (every answer alike) and compares their whole states at the end.
 */
async function twinsAgree(
  before: readonly Op[],
  after: readonly Op[],
  between?: (a: Sandbox, world: World) => void,
): Promise<void> {
  const { sb: a, world } = await start();
  let b: Sandbox | null = null;
  try {
    for (const op of before) {
      await run(a, world, op);
      await quiesce(a.core);
    }
    b = await twinOf(a);
    between?.(a, world);
    await runBoth(a, b, world, after);
    expect(withoutDurations(exportState(b.core))).toEqual(withoutDurations(exportState(a.core)));
  } finally {
    close(a, ...(b ? [b] : []));
  }
}

describe('snapshots of the state (D-137)', () => {
  it('a sandbox imported from a snapshot taken at any point answers every later call as the original', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 2, maxLength: 16 }),
        fc.array(opArb, { minLength: 3, maxLength: 16 }),
        (before, after) => twinsAgree(before, after),
      ),
      { numRuns: 20 },
    );
  }, 60_000);

  it('a snapshot export whose ledger rows and requests are made when read (D-151, D-157) reads, after later calls and forgets, as the export made at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 2, maxLength: 12 }),
        fc.array(opArb, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (before, after, forget) => {
          const { sb: a, world } = await start();
          try {
            for (const op of before) {
              await run(a, world, op);
              await quiesce(a.core);
            }
            const lazy = exportState(a.core, { lazy: true });
            const atOnce = JSON.stringify(exportState(a.core));
            // written as a snapshot writes it, which keeps texts for the next one (D-161); without its lines, the same
            const lined = async (v: unknown) => (await slicedJson(v, 0, true)).toString('utf8').replaceAll('\n', '');
            expect(await lined(lazy)).toBe(atOnce);
            for (const op of after) {
              await run(a, world, op);
              await quiesce(a.core);
            }
            // a later lazy export shares nothing stale: every request changed since the first was copied again (D-157),
            // and no text kept from the first is written for a request that changed or whose texts were numbered anew
            expect(JSON.stringify(exportState(a.core, { lazy: true }))).toBe(JSON.stringify(exportState(a.core)));
            expect(await lined(exportState(a.core, { lazy: true }))).toBe(JSON.stringify(exportState(a.core)));
            // a tenant dropped (evicted, or reset away) after the export: its rows were taken as they stood
            if (forget) for (const id of Object.keys(lazy.tenants)) forgetTenant(a.core, id);
            expect(JSON.stringify(lazy)).toBe(atOnce);
            expect((await slicedJson(lazy, 0)).toString('utf8')).toBe(atOnce);
          } finally {
            close(a);
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 60_000);

  it("a busy tenant's part compressed by kept blocks (D-161) reads, after more calls and decisions on its oldest requests, as the export made at once", async () => {
    const { sb: a, world } = await start();
    try {
      const who = world.tenants[0];
      expect((await a.call('PATCH', `/sandbox/v1/tenants/${who.id}`, { screeningCredits: 9000 })).status).toBe(200);
      const submits = async (from: number, to: number) => {
        for (let i = from; i < to; i++)
          await run(a, world, { t: 'submit', who: 0, idem: i, cand: i % 3, title: i % 2 });
        await quiesce(a.core);
      };
      const part = async () => {
        const others = new Set(RequestCopy.openCopies());
        const [lazy] = exportTenants(a.core, [who.id], true) as { screening: { requests: { length: number } } }[];
        const copies = RequestCopy.openCopies().filter((c) => !others.has(c));
        expect(copies).toHaveLength(1);
        const { pieces, rawBytes } = await slicedGzip(lazy, 0, true);
        const text = gunzipSync(Buffer.concat(pieces)).toString('utf8');
        expect(rawBytes).toBe(Buffer.byteLength(text));
        expect(text.replaceAll('\n', '')).toBe(JSON.stringify(exportTenant(a.core, who.id)));
        // written whole, kept blocks included (their requests passed over, not read): its copy is closed (D-198)
        expect(RequestCopy.openCopies()).not.toContain(copies[0]);
        return lazy.screening.requests.length;
      };
      // more than a block (4,096) of requests and of ledger rows
      await submits(0, 4200);
      expect(await part()).toBeGreaterThan(4096);
      // the oldest requests change and more come: the blocks written again are the ones that changed
      const oldest = (exportTenant(a.core, who.id) as { screening: { requests: { id: string }[] } }).screening.requests;
      for (const [i, decision] of [
        [0, { decision: 'edited', reviewerId: 'rev_snap', editedScore: 17 }],
        [1, { decision: 'approved', reviewerId: 'rev_snap' }],
      ] as const)
        expect((await a.call('POST', `/sandbox/v1/reviews/${oldest[i].id}/decision`, decision)).status).toBe(200);
      await submits(4200, 4300);
      await part();
      await part();
      // a request changes after a copy is taken and before it is written: that copy writes it as it was (its block as
      // kept), and the next one as it is now (the block is not kept under the request's new stamp, D-198)
      const atCopy = JSON.stringify(exportTenant(a.core, who.id));
      const [taken] = exportTenants(a.core, [who.id], true);
      expect(
        (
          await a.call('POST', `/sandbox/v1/reviews/${oldest[2].id}/decision`, {
            decision: 'rejected',
            reviewerId: 'r',
          })
        ).status,
      ).toBe(200);
      const { pieces } = await slicedGzip(taken, 0, true);
      expect(gunzipSync(Buffer.concat(pieces)).toString('utf8').replaceAll('\n', '')).toBe(atCopy);
      await part();
    } finally {
      close(a);
    }
  }, 90_000);

  it("a lazy export's requests are made when read, as they were when it was taken, and its copy closes once read whole (D-167)", async () => {
    const { sb: a, world } = await start();
    try {
      const who = world.tenants[0];
      for (let i = 0; i < 40; i++) await run(a, world, { t: 'submit', who: 0, idem: i, cand: i % 3, title: i % 2 });
      await quiesce(a.core);
      const atOnce = JSON.stringify(exportTenant(a.core, who.id));
      const oldest = (JSON.parse(atOnce) as { screening: { requests: { id: string; state: string }[] } }).screening
        .requests;
      const others = new Set(RequestCopy.openCopies());
      const [lazy] = exportTenants(a.core, [who.id], true);
      const copies = RequestCopy.openCopies().filter((c) => !others.has(c));
      expect(copies).toHaveLength(1);
      // the oldest requests change before the export is read, one of them twice; more requests come
      for (const [i, decision] of [
        [0, { decision: 'edited', reviewerId: 'rev_copy', editedScore: 11 }],
        [1, { decision: 'approved', reviewerId: 'rev_copy' }],
      ] as const)
        expect((await a.call('POST', `/sandbox/v1/reviews/${oldest[i].id}/decision`, decision)).status).toBe(200);
      for (let i = 40; i < 45; i++) await run(a, world, { t: 'submit', who: 0, idem: i, cand: i % 3, title: i % 2 });
      await quiesce(a.core);
      expect(JSON.stringify(exportTenant(a.core, who.id))).not.toBe(atOnce);
      // read as it was taken, in pieces as a snapshot reads it and whole
      const { pieces } = await slicedGzip(lazy, 0, true);
      expect(gunzipSync(Buffer.concat(pieces)).toString('utf8').replaceAll('\n', '')).toBe(atOnce);
      expect(RequestCopy.openCopies()).not.toContain(copies[0]);
      // read whole, the list holds its requests' exports: later changes neither reach it nor are kept for it
      expect(
        (
          await a.call('POST', `/sandbox/v1/reviews/${oldest[2].id}/decision`, {
            decision: 'rejected',
            reviewerId: 'rev_copy',
          })
        ).status,
      ).toBe(200);
      expect(JSON.stringify(lazy)).toBe(atOnce);
    } finally {
      close(a);
    }
  });

  it("a request's token in a lazy export (D-161) is the same only while its export and its texts' numbers are", async () => {
    const { sb: a, world } = await start();
    try {
      const who = world.tenants[0];
      for (let i = 0; i < 6; i++) await run(a, world, { t: 'submit', who: 0, idem: i, cand: 0, title: 0 });
      await quiesce(a.core);
      type Requests = {
        length: number;
        at(i: number): { id: string };
        blocks?: { token?: (i: number, into: unknown[]) => void };
      };
      const tokens = () => {
        const [lazy] = exportTenants(a.core, [who.id], true) as { screening: { requests: Requests } }[];
        const list = lazy.screening.requests;
        return { ids: Array.from({ length: list.length }, (_, i) => list.at(i).id), of: list.blocks!.token! };
      };
      // each request's token: what it pushes, compared as a writer compares them (each value by ===)
      const read = (t: ReturnType<typeof tokens>) =>
        t.ids.map((_, i) => {
          const into: unknown[] = [];
          t.of(i, into);
          expect(into.length).toBeGreaterThan(0);
          return into;
        });
      const same = (x: unknown[], y: unknown[]) => x.length === y.length && x.every((v, k) => v === y[k]);
      const first = read(tokens());
      // nothing changed: the same tokens
      read(tokens()).forEach((token, i) => expect(same(token, first[i])).toBe(true));
      // the oldest request's score kept anew with a text no request had (as a late scoring does): every later request
      // keeps its export, but the text they share now has another number, so each one's token is new
      const now = tokens();
      a.core.screening.requests.get(now.ids[0])!.keepScore('{"late":true}', null);
      const after = read(tokens());
      after.forEach((token, i) => expect(same(token, first[i])).toBe(false));
      // a change to the newest request alone leaves the others' tokens as they were
      a.core.screening.requests.get(now.ids[5])!.keepScore('{"late":true}', null);
      const last = read(tokens());
      last.slice(0, 5).forEach((token, i) => expect(same(token, after[i])).toBe(true));
      expect(same(last[5], after[5])).toBe(false);
    } finally {
      close(a);
    }
  });

  it('a tenant forgotten and imported again at any point goes on as its twin that kept it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 2, maxLength: 14 }),
        fc.array(opArb, { minLength: 3, maxLength: 14 }),
        fc.nat(5),
        (before, after, which) =>
          twinsAgree(before, after, (a, world) => {
            const id = world.tenants[which % world.tenants.length].id;
            const part = JSON.parse(JSON.stringify(exportTenant(a.core, id)));
            forgetTenant(a.core, id);
            importTenant(a.core, id, part);
          }),
      ),
      { numRuns: 12 },
    );
  }, 60_000);

  it("a tenant's webhook deliveries are exported sharing what never changes, frozen, and copying what does (D-158)", async () => {
    const { sb: a, world } = await start();
    try {
      // tenant 1's receiver fails: its delivery is retried, so its attempts grow after the export
      await run(a, world, { t: 'submit', who: 1, idem: 0, cand: 0, title: 0 });
      await run(a, world, { t: 'advance', seconds: 61 });
      await quiesce(a.core);
      const live = a.core.webhooks.list({ tenantId: world.tenants[1].id });
      const d = live.find((x) => x.attempts.length > 0)!;
      expect(d).toBeDefined();
      const exported = a.core.webhooks.exportTenant(world.tenants[1].id).deliveries.find((x) => x.id === d.id)!;
      // shared: the result and every attempt (frozen: changing one throws)
      expect(exported.result).toBe(d.result);
      expect(exported.attempts[0]).toBe(d.attempts[0]);
      expect(Object.isFrozen(d.result) && Object.isFrozen(d.attempts[0])).toBe(true);
      expect(() => ((d.attempts[0] as { statusCode: number | null }).statusCode = 1)).toThrow(TypeError);
      // copied: the delivery's own fields and its list of attempts, which the next attempt does not reach
      const before = JSON.stringify(exported);
      await run(a, world, { t: 'advance', seconds: 3600 });
      await quiesce(a.core);
      expect(d.attempts.length).toBeGreaterThan(exported.attempts.length);
      expect(JSON.stringify(exported)).toBe(before);
    } finally {
      close(a);
    }
  });

  it('a tenant exported, forgotten and imported again answers as before; the other tenants are untouched', async () => {
    const { sb: a, world } = await start();
    const setup: Op[] = [
      { t: 'webhook', who: 0, url: 'fail' },
      { t: 'autoReview', who: 1, afterSeconds: 3600 },
      { t: 'submit', who: 0, idem: 1, cand: 0, title: 0 },
      { t: 'submit', who: 0, idem: 2, cand: 1, title: 1 },
      { t: 'submit', who: 1, idem: 1, cand: 0, title: 0 },
      { t: 'submit', who: 2, idem: 1, cand: 2, title: 0 },
      { t: 'decide', who: 0, nth: 0, decision: 'approved' },
      { t: 'apply', who: 0, job: 0 },
      { t: 'fault', who: 0, mode: 'status', count: 2 },
      { t: 'search', who: 0, q: 0 },
      { t: 'key', who: 0 },
    ];
    for (const op of setup) {
      await run(a, world, op);
      await quiesce(a.core);
    }
    // a dashboard account (it opens a tenant of its own) with a signed-in session
    const signedUp = a.core.store.accounts.signUp({
      email: 'owner@example.com',
      password: 'a long enough password',
      address: '203.0.113.9',
    });
    const b = await twinOf(a);
    try {
      // the account's tenant: its account and session go with it and come back with it
      const owner = signedUp.account.tenantId;
      const part = JSON.parse(JSON.stringify(exportTenant(a.core, owner)));
      forgetTenant(a.core, owner);
      expect(a.core.store.accounts.session(signedUp.session.id)).toBeNull();
      expect(() => a.core.store.accounts.account(signedUp.account.id)).toThrow(/does not exist/);
      importTenant(a.core, owner, part);
      expect(a.core.store.accounts.session(signedUp.session.id)?.account).toEqual(signedUp.account);
      // signing in finds the account by its e-mail again (on the twin too, so both draw the same secrets)
      for (const sb of [a, b]) {
        const signedIn = sb.core.store.accounts.signIn({
          email: 'owner@example.com',
          password: 'a long enough password',
          address: '203.0.113.9',
        });
        expect(signedIn.account.tenantId).toBe(owner);
      }

      const id = world.tenants[0].id;
      const others = a.core.tenants.list().filter((t) => t.id !== id);
      const partsOf = () => others.map((t) => JSON.stringify(exportTenant(a.core, t.id)));
      // while the tenant is away the others move up one place in the tenant list; nothing else of theirs changes
      const placeless = (parts: string[]) =>
        parts.map((p) => {
          const part = JSON.parse(p);
          delete part.tenant.position;
          return part;
        });
      const before = partsOf();
      const mine = JSON.parse(JSON.stringify(exportTenant(a.core, id)));

      const keyIds = a.core.tenants.keysOf(id).map((k) => k.id);
      expect(a.core.store.perMinute.exportState((bucket) => keyIds.includes(bucket)).length).toBeGreaterThan(0);
      forgetTenant(a.core, id);
      expect(a.core.store.perMinute.exportState((bucket) => keyIds.includes(bucket))).toEqual([]);
      expect(a.core.tenants.keysOf(id)).toEqual([]);
      expect(() => a.core.tenants.get(id)).toThrow(/does not exist/);
      expect(a.core.screening.list({ tenantId: id })).toEqual([]);
      expect(a.core.webhooks.list({ tenantId: id })).toEqual([]);
      expect(a.core.jobs.applications(id)).toEqual([]);
      expect(a.core.faults.listRules(id)).toEqual([]);
      expect(a.core.clock.pendingTimers(id)).toBe(0);
      expect(a.core.store.ledger.rowsOf(id).length).toBe(0);
      expect((await a.call('GET', '/api/screening/v1/usage', undefined, world.tenants[0].keys[0])).status).toBe(401);
      expect(placeless(partsOf())).toEqual(placeless(before));

      importTenant(a.core, id, mine);
      expect(partsOf()).toEqual(before);
      expect(JSON.parse(JSON.stringify(exportTenant(a.core, id)))).toEqual(mine);
      // the tenant goes on as its twin (which never forgot it) does: retries, expiry, rules, windows, replays
      await runBoth(a, b, world, [
        { t: 'read', who: 0, what: 'clock' },
        { t: 'search', who: 0, q: 1 },
        { t: 'search', who: 0, q: 2 },
        { t: 'submit', who: 0, idem: 1, cand: 0, title: 0 },
        { t: 'submit', who: 0, idem: 3, cand: 0, title: 2 },
        { t: 'advanceTenant', who: 0, seconds: 61 },
        { t: 'webhook', who: 0, url: 'ok' },
        { t: 'advanceTenant', who: 0, seconds: 600 },
        { t: 'advance', seconds: 80 * 3600 },
        { t: 'read', who: 0, what: 'audit' },
        { t: 'read', who: 0, what: 'deliveries' },
        { t: 'read', who: 1, what: 'audit' },
        { t: 'apply', who: 0, job: 1 },
        { t: 'read', who: 0, what: 'me' },
      ]);
    } finally {
      close(a, b);
    }
  }, 30_000);

  it('an attempt in flight when the snapshot is taken is made again after import', async () => {
    const { sb: a, world } = await start();
    const b = await makeSandbox();
    try {
      const t = world.tenants[0];
      await a.call('PATCH', `/sandbox/v1/tenants/${t.id}`, { webhookUrl: `${hookBase}/slow` });
      await run(a, world, { t: 'submit', who: 0, idem: 1, cand: 0, title: 0 });
      for (let i = 0; i < 100 && !a.core.webhooks.list({ tenantId: t.id }).some((d) => d.inFlight); i++)
        await new Promise((r) => setTimeout(r, 1));
      const [flying] = a.core.webhooks.list({ tenantId: t.id });
      expect(flying.inFlight).toBe(true);
      importState(b.core, JSON.parse(JSON.stringify(exportState(a.core))));
      await quiesce(a.core);
      await quiesce(b.core);
      for (const sb of [a, b]) {
        const d = sb.core.webhooks.get(flying.id)!;
        expect(d.status).toBe('delivered');
        expect(d.attempts.map((x) => [x.attempt, x.statusCode, x.manual])).toEqual([[1, 200, false]]);
      }
    } finally {
      close(a, b);
    }
  });

  it('an attempt in flight at export is finished by its answer after import when the store still awaits it', async () => {
    // a store that records attempts as a shared sandbox does (D-112): each answer is awaited under its attempt's id,
    // and the answer to an attempt restored in flight is asked for again by that id
    const answers = new Map<string, { answer: Promise<SendOutcome>; resolve(out: SendOutcome): void }>();
    const sent: string[] = [];
    const sendWebhook: SendWebhook = (_url, _headers, body, _timeoutMs, attemptId) => {
      // the attempt's id is its key (D-153): one key per attempt
      const key = attemptId;
      expect(answers.has(key)).toBe(false);
      let resolve!: (out: SendOutcome) => void;
      const answer = new Promise<SendOutcome>((r) => (resolve = r));
      answers.set(key, { answer, resolve });
      sent.push(body);
      return Object.assign(answer, { key });
    };
    const resumeWebhook: ResumeWebhook = (key) => answers.get(key)?.answer ?? null;
    const { sb: a, world } = await start({ sendWebhook, resumeWebhook });
    const b = await makeSandbox({ sendWebhook, resumeWebhook });
    try {
      const t = world.tenants[0];
      await run(a, world, { t: 'submit', who: 0, idem: 1, cand: 0, title: 0 });
      for (let i = 0; i < 100 && !a.core.webhooks.list({ tenantId: t.id }).some((d) => d.inFlight); i++)
        await new Promise((r) => setTimeout(r, 1));
      const [flying] = a.core.webhooks.list({ tenantId: t.id }).filter((d) => d.inFlight);
      expect(flying).toBeDefined();
      const attemptsBefore = sent.length;
      importState(b.core, JSON.parse(JSON.stringify(exportState(a.core))));
      await ticks();
      // nothing was made again: the restored attempt awaits the same answer
      expect(sent).toHaveLength(attemptsBefore);
      expect(b.core.webhooks.get(flying.id)!.inFlight).toBe(true);
      const out = {
        statusCode: 503,
        error: 'receiver answered 503',
        durationMs: 7,
        responseBody: 'busy',
        responseTruncated: false,
      };
      for (const pending of answers.values()) pending.resolve(out);
      await ticks();
      const seen = [a, b].map((sb) => deliveryView(sb.core.webhooks.get(flying.id)!));
      expect(seen[0].attempts.at(-1)).toMatchObject({ statusCode: 503, responseBody: 'busy', durationMs: 7 });
      expect(seen[0].status).toBe('retrying');
      expect(seen[1]).toEqual(seen[0]);
    } finally {
      close(a, b);
    }
  });

  it('refuses a snapshot of another format, naming both formats', async () => {
    const { sb: a, world } = await start();
    const b = await makeSandbox();
    try {
      const snap = exportState(a.core);
      expect(() => importState(b.core, { ...snap, format: SNAPSHOT_FORMAT + 1 })).toThrow(
        new RegExp(`format ${SNAPSHOT_FORMAT + 1}.*format ${SNAPSHOT_FORMAT}`),
      );
      const part = exportTenant(a.core, world.tenants[0].id) as Record<string, unknown>;
      expect(() => importTenant(b.core, world.tenants[0].id, { ...part, format: 0 })).toThrow(
        new RegExp(`format 0.*format ${SNAPSHOT_FORMAT}`),
      );
      expect(() => b.core.tenants.get(world.tenants[0].id)).toThrow(/does not exist/);
    } finally {
      close(a, b);
    }
  });

  it('refuses snapshots of formats 1 and 2 (ids and draws on streams shared by all tenants), naming both formats', async () => {
    const { sb: a, world } = await start();
    const b = await makeSandbox();
    try {
      await run(a, world, { t: 'submit', who: 0, idem: 1, cand: 0, title: 0 });
      await quiesce(a.core);
      const snap = JSON.parse(JSON.stringify(exportState(a.core))) as Snapshot;
      expect(snap.format).toBe(SNAPSHOT_FORMAT);
      for (const format of [1, 2]) {
        const old = structuredClone(snap) as any;
        old.format = format;
        for (const part of Object.values<any>(old.tenants)) part.format = format;
        expect(() => importState(b.core, old)).toThrow(
          new RegExp(`snapshot format ${format}: this version reads and writes snapshot format ${SNAPSHOT_FORMAT}`),
        );
        const id = world.tenants[0].id;
        expect(() => importTenant(b.core, id, old.tenants[id])).toThrow(new RegExp(`snapshot format ${format}`));
      }
    } finally {
      close(a, b);
    }
  });
});
