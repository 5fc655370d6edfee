// The partition a recorded call is routed to (src/replication/route.ts, D-143) is honest: drawn calls over
// every kind of route (API and keyed MCP calls by good, revoked, unknown or missing keys, control calls naming a
// tenant by path, query, body, object or key, dashboard calls by session and by e-mail, the anonymous MCP
// server), run through the real apps in process, and each call's route is checked against what it changed:
// - a call routed to a tenant changes no other tenant's exported state;
// - a call routed to `global` changes no tenant's state, and one routed to `create` no existing tenant's;
// - a call that is not recorded (a read) changes nothing at all;
// - what a tenant's call changes of the global state is one of the couplings listed below, each a known
//   obstacle to rebuilding a tenant from its own steps (docs/design/tenant-partitions.md).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Entropy, quiesce, toolCall } from './support/inProcess.js';
import { createAnonApp, createApp } from '../src/app.js';
import { resolveConfig } from '../src/config.js';
import { createCore, type Core } from '../src/domain/core.js';
import { exportState, exportTenant } from '../src/domain/snapshot.js';
import {
  changesWhatTenantsRead,
  partitionOf,
  residentDirectory,
  signsIn,
  type Partition,
} from '../src/replication/route.js';
import { isRecorded } from '../src/replication/calls.js';
import { openMemoryStore } from '../src/store/memory.js';

const ADMIN = 'sat_route_test_token';
const REAL_NOW = Date.UTC(2026, 2, 2, 9, 30, 0);

/**
 * The parts of the global state a tenant's call still changes, each a coupling its step must be marked for, so that
 * every instance applies it (D-172); anything else a tenant's call changes fails the test, and so does either of
 * these changed by a call the mark does not name.
 */
const COUPLINGS = {
  // hits and counts of rules of no tenant, consumed by every tenant's calls: the domain counts the fires
  faults: (c: { firedOfNoTenant: boolean }) => c.firedOfNoTenant,
  // failed sign-ins counted per address: a dashboard sign-in
  accounts: (c: { signsIn: boolean }) => c.signsIn,
};
/** What a call of no tenant that reads as changing nothing tenants read may change (D-172). */
const NOT_READ_BY_TENANTS = new Set(['ids', 'perMinute', 'perDay', 'callLog']);

interface Call {
  app: 'main' | 'anon';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface World {
  core: Core;
  tenants: { id: string; keys: string[]; revoked: string[] }[];
  accounts: { email: string; session: string | null }[];
  jobs: string[];
}

type Pick = (n: number) => number;

/** The calls a sequence is made of: each reads the world to name real tenants, keys and objects. */
const MAKERS: ((w: World, pick: Pick) => Call)[] = [];
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const json = (v: unknown) => JSON.stringify(v);
const JSONH = { 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const admin = (method: string, path: string, body?: unknown): Call => ({
  app: 'main',
  method,
  path,
  headers: { ...bearer(ADMIN), ...(body === undefined ? {} : JSONH) },
  body: body === undefined ? undefined : json(body),
});
const tenantOf = (w: World, pick: Pick) => w.tenants[pick(w.tenants.length)];
/** A tenant's live key, or sometimes a revoked, unknown or missing one. */
function keyOf(w: World, pick: Pick): Record<string, string> {
  const t = tenantOf(w, pick);
  switch (pick(6)) {
    case 0:
      return t.revoked.length ? bearer(t.revoked[0]) : {};
    case 1:
      return bearer('rjk_live_unknownunknownunknown');
    case 2:
      return {};
    default:
      return bearer(t.keys[pick(t.keys.length)]);
  }
}
const SUBMIT = (n: number) => ({
  idempotencyKey: `idem-${n}`,
  candidate: { kind: 'structured', fullName: 'Sari Wulandari', skills: ['TypeScript'], experienceYears: 6 },
  jobSpec: { title: n % 2 ? 'Senior Backend Engineer' : 'sandbox expire', mustHaves: ['TypeScript'] },
});
const mcp = (name: string, args: unknown) => json(toolCall(name, args));
const MCP_HEADERS = { ...JSONH, accept: 'application/json, text/event-stream' };

MAKERS.push(
  // the API and the keyed MCP server
  (w, p) => ({
    app: 'main',
    method: 'POST',
    path: '/api/screening/v1/screen',
    headers: { ...keyOf(w, p), ...JSONH },
    body: json(SUBMIT(p(4))),
  }),
  (w, p) => ({ app: 'main', method: 'GET', path: '/api/v1/jobs?q=engineer&limit=2', headers: keyOf(w, p) }),
  (w, p) => ({
    app: 'main',
    method: 'POST',
    path: `/api/v1/jobs/${w.jobs[p(w.jobs.length)]}/apply`,
    headers: { ...keyOf(w, p), ...JSONH },
    body: json({
      candidate_name: 'Sari',
      candidate_email: 'sari@example.com',
      message: 'Hello there, I would like to apply for this role. '.repeat(3),
    }),
  }),
  (w, p) => ({ app: 'main', method: 'GET', path: '/api/screening/v1/audit?limit=2', headers: keyOf(w, p) }),
  (w, p) => ({ app: 'main', method: 'GET', path: '/api/v1/me', headers: keyOf(w, p) }),
  (w, p) => ({ app: 'main', method: 'GET', path: `/api/v1/jobs?api_key=${tenantOf(w, p).keys[0]}`, headers: {} }),
  (w, p) => ({
    app: 'main',
    method: 'POST',
    path: '/api/mcp',
    headers: { ...keyOf(w, p), ...MCP_HEADERS },
    body: mcp(['talent_search', 'draft_application', 'search_jobs'][p(3)], { query: 'engineer', job_id: w.jobs[0] }),
  }),
  (w, p) => ({
    app: 'anon',
    method: 'POST',
    path: '/mcp',
    headers: MCP_HEADERS,
    body: mcp('search_jobs', { query: ['engineer', 'design'][p(2)] }),
  }),
  // the control API: tenants, keys, clocks, reviews, webhooks, faults, bugs, reset
  () => admin('POST', '/sandbox/v1/tenants', { planTier: 'pro' }),
  (w, p) => admin('PATCH', `/sandbox/v1/tenants/${tenantOf(w, p).id}`, { webhookUrl: 'http://127.0.0.1:9/hook' }),
  (w, p) => admin('POST', `/sandbox/v1/tenants/${tenantOf(w, p).id}/keys`, { scopes: ['screening', 'jobs'] }),
  (w, p) => ({
    ...admin('POST', `/sandbox/v1/tenants/${tenantOf(w, p).id}/webhook-secret/rotate`, {}),
    headers: { ...(p(2) ? bearer(ADMIN) : keyOf(w, p)), ...JSONH },
  }),
  (w, p) =>
    admin('POST', `/sandbox/v1/tenants/${tenantOf(w, p).id}/clock/advance`, {
      // a day past the month's end too: wallets refill (a read of one then changes nothing, D-162)
      seconds: [61, 7200, 40 * 86_400][p(3)],
    }),
  (w, p) => {
    // mostly one awaiting review, when there is one (else any, or one that does not exist)
    const all = w.core.screening.list({});
    const pending = all.filter((r) => r.state === 'pending_review');
    const reqs = pending.length && p(4) ? pending : all;
    const id = reqs.length ? reqs[p(reqs.length)].id : 'scr_missing';
    return { ...admin('POST', `/sandbox/v1/reviews/${id}/decision`, { decision: 'approved', reviewerId: 'rev_1' }) };
  },
  (w, p) => {
    const ds = w.core.webhooks.list();
    return admin(
      'POST',
      `/sandbox/v1/webhooks/deliveries/${ds.length ? ds[p(ds.length)].id : 'whd_missing'}/redeliver`,
    );
  },
  (w, p) => admin('POST', '/sandbox/v1/webhooks/test', { tenantId: tenantOf(w, p).id }),
  (w, p) =>
    admin('POST', '/sandbox/v1/faults', {
      mode: 'status',
      status: 503,
      path: '/api/v1/jobs',
      count: 1,
      ...(p(2) ? { tenantId: tenantOf(w, p).id } : {}),
    }),
  (w, p) => {
    const rules = w.core.faults.listRules();
    return admin('DELETE', `/sandbox/v1/faults/${rules.length ? rules[p(rules.length)].id : 'flt_missing'}`);
  },
  (w, p) => admin('DELETE', p(2) ? `/sandbox/v1/faults?tenantId=${tenantOf(w, p).id}` : '/sandbox/v1/faults'),
  (_, p) => admin('POST', '/sandbox/v1/clock/advance', { seconds: [1, 3600, 40 * 86_400][p(3)] }),
  (_, p) => admin(p(2) ? 'PUT' : 'DELETE', '/sandbox/v1/bugs/audit-skip-row'),
  (w, p) => ({ ...admin('GET', `/sandbox/v1/tenants/${tenantOf(w, p).id}`), headers: keyOf(w, p) }),
  (_, p) => admin('GET', ['/sandbox/v1/reviews', '/sandbox/v1/logs', '/sandbox/v1/tenants'][p(3)]),
  // the operator's other reads (none is recorded: each must change nothing)
  (w, p) => {
    const reqs = w.core.screening.list({});
    const paths = [
      `/sandbox/v1/tenants/${tenantOf(w, p).id}/clock`,
      '/sandbox/v1/clock',
      '/sandbox/v1/clock/timers',
      '/sandbox/v1/reviews/counts',
      `/sandbox/v1/reviews/${reqs.length ? reqs[p(reqs.length)].id : 'scr_missing'}`,
      '/sandbox/v1/webhooks/deliveries',
      '/sandbox/v1/webhooks/endpoints',
      '/sandbox/v1/applications',
      '/sandbox/v1/outbox',
      '/sandbox/v1/faults',
      '/sandbox/v1/demo',
      `/sandbox/v1/reviews?tenantId=${tenantOf(w, p).id}`,
    ];
    return admin('GET', paths[p(paths.length)]);
  },
  // the dashboard's pages, read by a signed-in account (or none)
  (w, p): Call => {
    const a = w.accounts[p(w.accounts.length)];
    const pages = [
      '/app',
      '/app/billing',
      '/app/keys',
      '/app/webhooks',
      '/app/requests',
      '/app/deliveries',
      '/app/logs',
    ];
    return {
      app: 'main',
      method: 'GET',
      path: pages[p(pages.length)],
      headers: a?.session ? { cookie: `rjs_app=${a.session}` } : {},
    };
  },
  // the dashboard: sign-up, sign-in (right and wrong password), sign-out, keys, webhook secret
  (w) => ({
    app: 'main',
    method: 'POST',
    path: '/app/signup',
    headers: FORM,
    body: `email=dev${w.accounts.length}%40example.com&password=correct-horse-battery`,
  }),
  (w, p) => {
    const a = w.accounts[p(w.accounts.length)];
    return {
      app: 'main',
      method: 'POST',
      path: '/app/login',
      headers: FORM,
      body: `email=${encodeURIComponent(a?.email ?? 'nobody@example.com')}&password=${p(3) ? 'correct-horse-battery' : 'wrong'}`,
    };
  },
  (w, p) => dashboardPost(w, p, ['/app/keys', '/app/webhooks/rotate', '/app/logout'][p(3)]),
);

function dashboardPost(w: World, p: Pick, path: string): Call {
  const a = w.accounts[p(w.accounts.length)];
  const live = a?.session ? w.core.store.accounts.session(a.session) : null;
  return {
    app: 'main',
    method: 'POST',
    path,
    headers: { ...FORM, ...(a?.session ? { cookie: `rjs_app=${a.session}` } : {}) },
    body: `_csrf=${live?.session.csrf ?? ''}&scopes=search`,
  };
}

/** A drawn call as the apps take it. */
const requestOf = (call: Call) =>
  new Request(`http://sandbox.test${call.path}`, { method: call.method, headers: call.headers, body: call.body });

/** The exported state of every tenant, and of the global state part by part, as JSON texts. */
function stateOf(core: Core): { tenants: Map<string, string>; global: Map<string, string> } {
  const tenants = new Map<string, string>();
  for (const t of core.tenants.list()) tenants.set(t.id, JSON.stringify(exportTenant(core, t.id)));
  const global = new Map<string, string>();
  for (const [k, v] of Object.entries(exportState(core).global as Record<string, unknown>))
    global.set(k, JSON.stringify(v));
  return { tenants, global };
}

const changed = (a: Map<string, string>, b: Map<string, string>) =>
  [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));

async function world(): Promise<{ w: World; main: ReturnType<typeof createApp>; anon: { fetch: typeof fetch } }> {
  const entropy = new Entropy();
  const core = await createCore(
    resolveConfig({ adminToken: ADMIN, seedDemo: true, corpusSize: 40, publicUrl: 'http://sandbox.test' }),
    (deps) => {
      deps.ids.share('route0', entropy.draw);
      return openMemoryStore(deps, { realNow: () => REAL_NOW, cursorSecret: Buffer.alloc(32, 3) });
    },
  );
  const w: World = {
    core,
    tenants: [],
    accounts: [],
    jobs: core.jobs.search('pro', { limit: '3' }).jobs.map((j) => j.id),
  };
  for (const t of core.tenants.list())
    w.tenants.push({
      id: t.id,
      keys: [core.demo?.tenants.find((d) => d.tenantId === t.id)?.apiKey].filter((k): k is string => !!k),
      revoked: [],
    });
  const main = createApp(core);
  const send = (call: Call) => main.fetch(requestOf(call));
  // every tenant has a receiver (a closed port: its attempts fail at once), so submits and tests make deliveries
  for (const t of w.tenants)
    await send(admin('PATCH', `/sandbox/v1/tenants/${t.id}`, { webhookUrl: 'http://127.0.0.1:9/hook' }));
  // a request of each tenant awaiting review from the start, so that decisions on one are drawn often enough
  for (const t of w.tenants)
    await send({
      app: 'main',
      method: 'POST',
      path: '/api/screening/v1/screen',
      headers: { ...bearer(t.keys[0]), ...JSONH },
      body: json({ ...SUBMIT(1), idempotencyKey: 'idem-seed' }),
    });
  // and a fault rule of a tenant on a path no call here takes, so that removing a rule by its id is drawn too
  await send(
    admin('POST', '/sandbox/v1/faults', {
      mode: 'status',
      status: 503,
      path: '/api/v1/market/skills',
      count: 1,
      tenantId: w.tenants[0].id,
    }),
  );
  await quiesce(core);
  return { w, main, anon: createAnonApp(core) as unknown as { fetch: typeof fetch } };
}

/** Which makers' calls were answered without an error, and which kinds of route changed a tenant (not vacuous). */
const answered = new Set<number>();
/** Each maker's last call and its status, to name a maker never answered. */
const lastOf = new Map<number, string>();
const routedChanges = new Set<string>();

describe('the partition of a recorded call names every tenant it changes (D-143)', () => {
  it('holds for drawn sequences of calls over every kind of route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(MAKERS.length - 1), fc.array(fc.nat(), { minLength: 8 })), {
          minLength: 5,
          maxLength: 40,
        }),
        async (seq) => {
          const { w, main, anon } = await world();
          const core = w.core;
          const dir = residentDirectory(core);
          for (const [m, draws] of seq) {
            let d = 0;
            const pick: Pick = (n) => (n <= 0 ? 0 : draws[d++ % draws.length] % n);
            const call = MAKERS[m](w, pick);
            const body = call.body === undefined ? null : Buffer.from(call.body);
            const routed = {
              app: call.app,
              method: call.method,
              url: `http://sandbox.test${call.path}`,
              header: (n: string) => call.headers[n.toLowerCase()],
              body,
            };
            const route: Partition = partitionOf(routed, dir);
            const firesBefore = core.faults.globalFires;
            const recorded = call.app === 'anon' || isRecorded(call.method, call.path, '/api/');
            await quiesce(core);
            const before = stateOf(core);
            const res = await (call.app === 'anon' ? anon : main).fetch(requestOf(call));
            const text = await res.text();
            await quiesce(core);
            const after = stateOf(core);
            learn(w, call, res, text);
            const tenants = changed(before.tenants, after.tenants);
            const existing = tenants.filter((t) => before.tenants.has(t));
            const global = changed(before.global, after.global);
            // a key in the query string is refused by design (D-08): its 401 is its answer
            if (res.status < 400 || (call.path.includes('api_key=') && res.status === 401)) answered.add(m);
            lastOf.set(m, `${call.method} ${call.path} (${res.status}) ${res.status >= 400 ? text.slice(0, 160) : ''}`);
            if (route.kind !== 'global' && tenants.length) routedChanges.add(route.kind);
            const what = `${call.method} ${call.path} (${res.status}) routed ${JSON.stringify(route)} changed tenants ${JSON.stringify(tenants)} and global ${JSON.stringify(global)}`;
            if (!recorded) expect([...tenants, ...global], `a read changed state: ${what}`).toEqual([]);
            switch (route.kind) {
              case 'tenant':
                expect(
                  existing.filter((t) => t !== route.tenantId),
                  what,
                ).toEqual([]);
                {
                  const seen = { firedOfNoTenant: core.faults.globalFires !== firesBefore, signsIn: signsIn(routed) };
                  expect(
                    global.filter((g) => !(g in COUPLINGS && COUPLINGS[g as keyof typeof COUPLINGS](seen))),
                    `${what}, a step not marked as changing the state of no tenant`,
                  ).toEqual([]);
                }
                break;
              case 'global':
                expect(tenants, what).toEqual([]);
                if (!changesWhatTenantsRead(routed, route))
                  expect(
                    global.filter((g) => !NOT_READ_BY_TENANTS.has(g)),
                    `${what}, read as changing nothing tenants read`,
                  ).toEqual([]);
                break;
              case 'create':
                expect(existing, what).toEqual([]);
                break;
              case 'all':
                break;
            }
          }
          core.clock.clear();
        },
      ),
      { numRuns: 30 },
    );
    // every kind of call was answered at least once, and tenant, create and all routes did change tenants
    expect(
      MAKERS.map((_, i) => i)
        .filter((i) => !answered.has(i))
        .map((i) => `${i}: ${lastOf.get(i) ?? 'never drawn'}`),
    ).toEqual([]);
    expect([...routedChanges].sort()).toEqual(['all', 'create', 'tenant']);
  }, 120_000);
});

/** What a call taught the sequence: new tenants and keys, accounts and their sessions. */
function learn(w: World, call: Call, res: Response, text: string): void {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  if (call.path === '/sandbox/v1/tenants' && res.status === 201)
    w.tenants.push({ id: body.tenantId as string, keys: [body.apiKey as string], revoked: [] });
  const keysOf = /^\/sandbox\/v1\/tenants\/([^/]+)\/keys$/.exec(call.path);
  if (keysOf && res.status === 201) w.tenants.find((t) => t.id === keysOf[1])?.keys.push(body.apiKey as string);
  const cookie = /rjs_app=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  const email = /email=([^&]*)/.exec(call.body ?? '')?.[1];
  if (call.path === '/app/signup' && res.status === 201 && email) {
    const address = decodeURIComponent(email);
    w.accounts.push({ email: address, session: cookie ?? null });
    const tenantId = w.core.store.accounts.session(cookie)?.account.tenantId;
    if (tenantId && !w.tenants.some((t) => t.id === tenantId)) w.tenants.push({ id: tenantId, keys: [], revoked: [] });
  }
  if (call.path === '/app/login' && cookie) {
    const a = w.accounts.find((x) => x.email === decodeURIComponent(email ?? ''));
    if (a) a.session = cookie;
  }
}
