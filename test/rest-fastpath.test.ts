// The REST fast path (src/http/fastPath.ts) is a branch of the routed app's pipeline (D-131): on any call
// it answers exactly what the routed app answers. Two sandboxes on the same seed, one with the fast path
// and one without (fastPath: false, as SANDBOX_FAST_PATH=0), get the same generated calls in the same
// order over raw HTTP -- every API route of both documents, valid and invalid targets, queries, keys,
// origins and bodies, with chaos rules and planted bugs switched on and off between them -- and every
// answer must match byte for byte (status line, header names, case and order, body), with what depends on
// the instant alone masked; so must the request log's entries of those calls.

import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_TEXT_CAP } from '../src/domain/callLog.js';
import { BUGS } from '../src/domain/faults.js';
import { startSandbox, type RunningSandbox } from '../src/main.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';

const SEED = 4242;
let fast: RunningSandbox;
let routed: RunningSandbox;

/** One raw HTTP/1.1 exchange; the answer's bytes as a string. */
function exchange(baseUrl: string, call: Buffer): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(call);
  });
}

const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z/g;

/**
 * What depends on the instant alone, masked: the Date, seconds to a window's reset, sandbox-clock
 * timestamps (each instance's clock is real time), ids made from them, and the instance's epoch in new ids.
 */
const masked = (text: string, sb: RunningSandbox) =>
  text
    .replace(/^Date: .*$/m, 'Date: <date>')
    .replace(/^(x-ratelimit-reset|retry-after): \d+$/gim, '$1: <seconds>')
    .replaceAll(`_${sb.core.ids.epoch}`, '_<epoch>')
    .replace(ISO_TIME, '<time>')
    .replace(/evt_[a-z0-9]+/g, 'evt_<id>');

const admin = (sb: RunningSandbox) => client(sb.baseUrl, ADMIN_TOKEN);
const onBoth = async (method: string, path: string, body?: unknown) => {
  for (const sb of [fast, routed])
    expect((await admin(sb)(method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
};

let keys: { free: string; pro: string; scale: string; jobsOnly: string };
let jobId: string;
let roleSlug: string;

beforeAll(async () => {
  const common = {
    host: '127.0.0.1',
    port: 0,
    anonMcpPort: 0,
    adminToken: ADMIN_TOKEN,
    seed: SEED,
    corpusSize: 300,
    selfCheck: true,
  };
  [fast, routed] = await Promise.all([
    startSandbox({ ...common, fastPath: true }),
    startSandbox({ ...common, fastPath: false }),
  ]);
  const demo = (sb: RunningSandbox) => sb.core.demo!.tenants.map((t) => t.apiKey);
  expect(demo(fast)).toEqual(demo(routed));
  const tenants = fast.core.demo!.tenants;
  keys = {
    free: tenants.find((t) => t.planTier === 'free')!.apiKey,
    pro: tenants.find((t) => t.planTier === 'pro')!.apiKey,
    scale: tenants.find((t) => t.planTier === 'scale')!.apiKey,
    jobsOnly: tenants.find((t) => t.note)!.apiKey,
  };
  // the same first calls on both, so both windows count alike from here
  const first = await Promise.all(
    [fast, routed].map((sb) => client(sb.baseUrl, keys.pro)('GET', '/api/v1/jobs?limit=1')),
  );
  expect(first[0].text).toBe(first[1].text);
  jobId = first[0].json.jobs[0].id;
  const roles = await Promise.all(
    [fast, routed].map((sb) => client(sb.baseUrl, keys.pro)('GET', '/api/v1/market/roles')),
  );
  expect(roles[0].text).toBe(roles[1].text);
  roleSlug =
    Object.values(roles[0].json.roles?.[0] ?? {}).find(
      (v): v is string => typeof v === 'string' && /^[a-z-]+$/.test(v),
    ) ?? 'backend-engineering';
});

afterAll(async () => {
  await Promise.all([fast?.close(), routed?.close()]);
});

// ---------------------------------------------------------------- generated calls

/** Every route either document serves (webhooks are sent, not served), from the loaded contract. */
const routes = () =>
  fast.core.contracts.operations
    .filter((op) => op.path.startsWith('/'))
    .map((op) => ({ method: op.method, path: op.path }));

const submitBody = (key: string, mustHaves: string[]) =>
  JSON.stringify({
    idempotencyKey: key,
    candidate: {
      kind: 'structured',
      fullName: 'Sari Wulandari',
      summary: 'Backend engineer, TypeScript and PostgreSQL.',
      skills: ['TypeScript', 'PostgreSQL'],
      experienceYears: 6,
    },
    jobSpec: { title: 'Backend Engineer', mustHaves, niceToHaves: ['AWS'] },
  });

const applyBody = JSON.stringify({
  candidate_name: 'Dewi Lestari',
  candidate_email: 'dewi@example.com',
  message: 'I would like to apply: '.padEnd(120, 'x'),
});

interface Call {
  route: number;
  /** Path parameters' values: a valid one, a missing one, a malformed one, one the router decodes. */
  param: number;
  query: Array<[string, string]>;
  auth: 'none' | 'free' | 'pro' | 'scale' | 'jobsOnly' | 'unknown' | 'basic';
  origin: boolean;
  /** Mostly a plain Host; now and then one the server adapter refuses or rewrites (the routed app's then). */
  host: string;
  body: { text: string; type: string | null } | null;
}

/** One run: the planted bugs and chaos rules switched on (on both sandboxes), then the calls. */
interface Run {
  bugs: string[];
  chaos: Array<Record<string, unknown>>;
  calls: Call[];
}

const callArb: fc.Arbitrary<Call> = fc.record({
  route: fc.nat({ max: 63 }),
  param: fc.nat({ max: 3 }),
  // mostly no query or a valid one, so calls get past validation to the answer and its headers
  query: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as Array<[string, string]>) },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.tuple(fc.constantFrom('limit', 'offset', 'q'), fc.constantFrom('1', '5', '2', 'engineer')),
        { maxLength: 2 },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.tuple(
          fc.constantFrom('limit', 'offset', 'q', 'cursor', 'since', 'remote_type', 'nope', 'api_key'),
          fc.constantFrom('1', '5', '501', 'abc', '-1', 'engineer', 'a b', 'bogus', 'global', '2026-01-01T00:00:00Z'),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  ),
  auth: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Call['auth']>('pro', 'scale', 'free') },
    { weight: 1, arbitrary: fc.constantFrom<Call['auth']>('none', 'jobsOnly', 'unknown', 'basic') },
  ),
  origin: fc.boolean(),
  host: fc.oneof(
    { weight: 8, arbitrary: fc.constant('sandbox.test') },
    { weight: 1, arbitrary: fc.constantFrom('SANDBOX.test:80', '1.2.3', 'localhost:1') },
  ),
  body: fc.option(
    fc.record({
      text: fc.oneof(
        fc
          .tuple(
            fc.constantFrom('p-1', 'p-2', 'p-3', 'p-4'),
            fc.constantFrom(['TypeScript'], [] as string[], ['Go', 'SQL']),
          )
          .map(([k, m]) => submitBody(k, m)),
        fc.constant(applyBody),
        fc.constantFrom('', '{}', '{"idempotencyKey": "p-5", ', '[1,2]', '{"idempotencyKey":"p-6"}'),
      ),
      type: fc.constantFrom(
        'application/json',
        'application/json',
        'application/vnd.api+json; charset=utf-8',
        'text/plain',
        null,
      ),
    }),
    { freq: 1 },
  ),
});

const chaosRuleArb = fc
  .record({
    path: fc.constantFrom(
      '*',
      '/api/v1/jobs',
      '/api/v1/jobs/',
      '/api/screening/v1/audit',
      '/api/screening/v1/screen',
      '/api/v1/me',
      '/api/v1/market',
    ),
    method: fc.constantFrom(undefined, 'GET', 'POST'),
    mode: fc.constantFrom('status', 'latency'),
    status: fc.constantFrom(429, 500, 503),
    count: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ mode, status, method, ...rest }) => ({
    ...rest,
    ...(method ? { method } : {}),
    mode,
    ...(mode === 'status' ? { status } : { latencyMs: 3 }),
  }));

const runArb: fc.Arbitrary<Run> = fc.record({
  // no planted bug in about half the runs, otherwise about half of them at once
  bugs: fc.oneof(fc.constant([] as string[]), fc.subarray(Object.keys(BUGS))),
  chaos: fc.oneof(
    fc.constant([] as Array<Record<string, unknown>>),
    fc.array(chaosRuleArb, { minLength: 1, maxLength: 3 }),
  ),
  calls: fc.array(callArb, { minLength: 4, maxLength: 16 }),
});

/** The raw HTTP request of a generated call. */
function requestOf(c: Call): Buffer {
  const all = routes();
  const route = all[c.route % all.length];
  const values: Record<string, string[]> = {
    id: [jobId, 'job_doesnotexist', 'Job_Bad-Id', '%6aob_x'],
    role: [roleSlug, 'no-such-role', 'Bad_Role', 'backend%2Dengineering'],
  };
  const path = route.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => (values[name] ?? ['x', 'y', 'Z!', '%7A'])[c.param],
  );
  const query = c.query.map(([k, v]) => `${k}=${k === 'api_key' ? keys.pro : encodeURIComponent(v)}`).join('&');
  const target = query ? `${path}?${query}` : path;
  const headers: string[] = [`Host: ${c.host}`];
  const key = {
    none: null,
    free: keys.free,
    pro: keys.pro,
    scale: keys.scale,
    jobsOnly: keys.jobsOnly,
    unknown: 'rjk_live_0000000000000000000000',
  }[c.auth as string];
  if (c.auth === 'basic') headers.push('Authorization: Basic abc');
  else if (key) headers.push(`Authorization: Bearer ${key}`);
  if (c.origin) headers.push('Origin: https://docs.example');
  const body = route.method === 'GET' ? null : (c.body ?? { text: '', type: null });
  if (body) {
    if (body.type) headers.push(`Content-Type: ${body.type}`);
    headers.push(`Content-Length: ${Buffer.byteLength(body.text)}`);
  }
  headers.push('Connection: close');
  return Buffer.concat([
    Buffer.from(`${route.method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`),
    Buffer.from(body?.text ?? ''),
  ]);
}

/** The request log's newest `n` entries, with what depends on the instant masked. */
function newestLog(sb: RunningSandbox, n: number) {
  const { entries } = sb.core.callLog.window();
  return entries.slice(-n).map(({ id, at, durationMs, ...rest }) => {
    expect([typeof id, typeof at, typeof durationMs]).toEqual(['string', 'string', 'number']);
    return JSON.parse(masked(JSON.stringify(rest), sb)) as unknown;
  });
}

const settle = () => new Promise((r) => setTimeout(r, 10));

/**
 * Rate windows are fixed sandbox-clock minutes (D-22), and both clocks run on real time: a pair of calls
 * is never sent across a minute's end, where one sandbox would count the call in the next window.
 */
async function clearOfWindowEnd(): Promise<void> {
  const left = 60_000 - (fast.core.clock.now() % 60_000);
  if (left < 300) await new Promise((r) => setTimeout(r, left + 20));
}

describe('the REST fast path answers as the routed app does', () => {
  it('on generated calls to every API route, with chaos rules and planted bugs: status, headers, bytes and the request log', async () => {
    const quiet = console.error;
    // self-check reports the planted bugs' broken answers on the console: the answers themselves are compared
    console.error = () => {};
    const before = fast.fastPathCalls();
    let calls = 0;
    try {
      await fc.assert(
        fc.asyncProperty(runArb, async (run) => {
          try {
            for (const bug of run.bugs) await onBoth('PUT', `/sandbox/v1/bugs/${bug}`);
            for (const rule of run.chaos) await onBoth('POST', '/sandbox/v1/faults', rule);
            for (const c of run.calls) {
              const call = requestOf(c);
              await clearOfWindowEnd();
              const a = masked(await exchange(fast.baseUrl, call), fast);
              const b = masked(await exchange(routed.baseUrl, call), routed);
              expect(a, call.toString('utf8').slice(0, 400)).toBe(b);
            }
            calls += run.calls.length;
            // the routed app writes an entry after reading a body it had not read whole: give it a moment
            const n = run.calls.length;
            for (let i = 0; i < 50 && JSON.stringify(newestLog(fast, n)) !== JSON.stringify(newestLog(routed, n)); i++)
              await settle();
            expect(newestLog(fast, n)).toEqual(newestLog(routed, n));
          } finally {
            for (const bug of run.bugs) await onBoth('DELETE', `/sandbox/v1/bugs/${bug}`);
            await onBoth('DELETE', '/sandbox/v1/faults');
          }
        }),
        {
          numRuns: 40,
          endOnFailure: true,
          ...(process.env.FASTPATH_SEED ? { seed: Number(process.env.FASTPATH_SEED) } : {}),
        },
      );
    } finally {
      console.error = quiet;
    }
    // the fast path answered a fair share of the calls (the rest are the routed app's by design)
    expect(fast.fastPathCalls() - before).toBeGreaterThan(calls / 10);
    expect(routed.fastPathCalls()).toBe(0);
  }, 60_000);
});

describe('self-check on the fast path', () => {
  let checked: RunningSandbox;
  beforeAll(async () => {
    checked = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      seed: SEED,
      corpusSize: 300,
      selfCheck: true,
    });
  });
  afterAll(async () => {
    await checked?.close();
  });

  it('replaces an answer that breaks the contract with the 500 naming the problem', async () => {
    const api = client(checked.baseUrl, keys.pro);
    const ok = await api('GET', `/api/v1/jobs/${jobId}`);
    expect(ok.status).toBe(200);
    // a long answer is checked whole (the request log keeps only its first bytes)
    const page = await api('GET', '/api/v1/jobs?limit=50');
    expect(page.status).toBe(200);
    expect(page.text.length).toBeGreaterThan(LOG_TEXT_CAP * 4);
    expect((await admin(checked)('PUT', '/sandbox/v1/bugs/drop_ratelimit_remaining')).status).toBe(200);
    const before = checked.fastPathCalls();
    const quiet = console.error;
    console.error = () => {};
    try {
      const broken = await api('GET', `/api/v1/jobs/${jobId}`);
      expect(broken.status).toBe(500);
      expect(broken.headers.get('content-type')).toBe('application/json; charset=UTF-8');
      expect(broken.json.error.code).toBe('internal');
      expect(broken.json.error.message).toContain('getJob');
      expect(broken.json.error.message).toContain('header X-RateLimit-Remaining is missing');
    } finally {
      console.error = quiet;
    }
    expect(checked.fastPathCalls()).toBe(before + 1);
  });
});
