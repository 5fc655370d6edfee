// The REST fast path (src/http/fastPath.ts) against the routed app, over raw HTTP: two sandboxes on the
// same seed, one with the fast path and one without, get the same calls in the same order, and every
// answer must match byte for byte (status line, header names, case and order, body), the Date and the
// window's reset seconds aside. Errors, CORS, rate windows, chaos rules, planted bugs, self-check and
// the request log are all compared, and the fast path is shown to have answered the calls.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_TEXT_CAP } from '../src/domain/callLog.js';
import { startSandbox, type RunningSandbox } from '../src/main.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';

const SEED = 4242;
let fast: RunningSandbox;
let routed: RunningSandbox;

/** One raw HTTP/1.1 exchange; the answer's bytes as a string. */
function exchange(baseUrl: string, head: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(head);
  });
}

const request = (target: string, headers: Record<string, string> = {}, host = 'sandbox.test', method = 'GET') =>
  `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;

/** A POST with a body sent as given (a string, or bytes), its Content-Length declared unless chunked. */
function post(target: string, headers: Record<string, string>, body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const chunked = headers['Transfer-Encoding'] === 'chunked';
  const framed = chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]) : bytes;
  const head = request(target, chunked ? headers : { ...headers, 'Content-Length': String(bytes.length) }, undefined, 'POST');
  return Buffer.concat([Buffer.from(head), framed]);
}

/**
 * The answer with what depends on the moment alone masked: the Date, the window's seconds to reset, and
 * the instance's epoch in new ids (random per start, so ids never repeat across restarts).
 */
const masked = (raw: string, sb: RunningSandbox) =>
  raw
    .replace(/^Date: .*$/m, 'Date: <date>')
    .replace(/^(x-ratelimit-reset): \d+$/m, '$1: <seconds>')
    .replaceAll(`_${sb.core.ids.epoch}`, '_<epoch>');

/** The same call on both sandboxes, one after the other; both answers, masked. */
async function both(target: string, headers: Record<string, string> = {}, host?: string) {
  return bothRaw(request(target, headers, host));
}

async function bothRaw(call: string | Buffer) {
  const a = masked(await exchange(fast.baseUrl, call), fast);
  const b = masked(await exchange(routed.baseUrl, call), routed);
  return { fast: a, routed: b };
}

const admin = (sb: RunningSandbox) => client(sb.baseUrl, ADMIN_TOKEN);
const onBoth = async (method: string, path: string, body?: unknown) => {
  for (const sb of [fast, routed]) expect((await admin(sb)(method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
};

let keys: { free: string; pro: string; scale: string; jobsOnly: string };
let jobId: string;

beforeAll(async () => {
  const common = { host: '127.0.0.1', port: 0, anonMcpPort: 0, adminToken: ADMIN_TOKEN, seed: SEED, corpusSize: 300, selfCheck: false };
  [fast, routed] = await Promise.all([startSandbox({ ...common, fastPath: true }), startSandbox({ ...common, fastPath: false })]);
  const demo = (sb: RunningSandbox) => sb.core.demo!.tenants.map((t) => t.apiKey);
  expect(demo(fast)).toEqual(demo(routed));
  const tenants = fast.core.demo!.tenants;
  keys = {
    free: tenants.find((t) => t.planTier === 'free')!.apiKey,
    pro: tenants.find((t) => t.planTier === 'pro')!.apiKey,
    scale: tenants.find((t) => t.planTier === 'scale')!.apiKey,
    jobsOnly: tenants.find((t) => t.note)!.apiKey,
  };
  // the same first call on both, so both windows count alike from here
  const [a, b] = await Promise.all([fast, routed].map((sb) => client(sb.baseUrl, keys.pro)('GET', '/api/v1/jobs?limit=1')));
  expect(a.text).toBe(b.text);
  jobId = a.json.jobs[0].id;
});

afterAll(async () => {
  await Promise.all([fast?.close(), routed?.close()]);
});

describe('the REST fast path answers as the routed app does', () => {
  it('on the hot reads, their errors and CORS, byte for byte', async () => {
    const bearer = (k: string) => ({ Authorization: `Bearer ${k}` });
    const calls: Array<[string, Record<string, string>, string?]> = [
      [`/api/v1/jobs/${jobId}`, bearer(keys.pro)],
      [`/api/v1/jobs/${jobId}`, { ...bearer(keys.pro), Origin: 'https://docs.example' }],
      ['/api/v1/jobs?q=engineer&limit=5', bearer(keys.pro)],
      ['/api/v1/jobs?q=engineer&limit=5&offset=2&remote_type=global', bearer(keys.free)],
      ['/api/v1/jobs', { ...bearer(keys.pro), Origin: 'null' }],
      ['/api/v1/jobs?limit=abc', bearer(keys.pro)],
      ['/api/v1/jobs?nope=1', bearer(keys.pro)],
      [`/api/v1/jobs/${jobId}?x=1`, bearer(keys.pro)],
      ['/api/v1/jobs/job_doesnotexist', bearer(keys.pro)],
      ['/api/v1/jobs/Job_Bad-Id', bearer(keys.pro)],
      [`/api/v1/jobs/${jobId}`, {}],
      [`/api/v1/jobs/${jobId}`, { Origin: 'https://docs.example' }],
      [`/api/v1/jobs/${jobId}`, bearer('rjk_live_0000000000000000000000')],
      [`/api/v1/jobs/${jobId}`, { Authorization: 'Basic abc' }],
      [`/api/v1/jobs/${jobId}?api_key=${keys.pro}`, {}],
      ['/api/screening/v1/audit?limit=2', bearer(keys.pro)],
      ['/api/screening/v1/audit', { ...bearer(keys.pro), Origin: 'https://docs.example' }],
      ['/api/screening/v1/audit?limit=501', bearer(keys.pro)],
      ['/api/screening/v1/audit?cursor=bogus', bearer(keys.pro)],
      ['/api/screening/v1/audit', bearer(keys.jobsOnly)],
      ['/api/screening/v1/audit', {}],
      ['/api/screening/v1/audit?since=yesterday', { ...bearer(keys.pro), Origin: 'https://x.example' }],
      // the router's own treatment of targets and hosts the fast path leaves alone
      ['/api/v1/jobs/%6aob_x', bearer(keys.pro)],
      ['/api/v1/jobs?q=a%20b&q=c', bearer(keys.pro)],
      [`/api/v1/jobs/${jobId}`, bearer(keys.pro), '1.2.3'],
      [`/api/v1/jobs/${jobId}`, bearer(keys.pro), 'SANDBOX.test:80'],
    ];
    const before = fast.fastPathCalls();
    for (const [target, headers, host] of calls) {
      const { fast: a, routed: b } = await both(target, headers, host);
      expect(a, `GET ${target} ${JSON.stringify(headers)}`).toBe(b);
    }
    // all but the three the fast path hands to the router: an encoded path, and two hosts the server
    // adapter refuses (one its URL parser reads as an IPv4 address, one it lower-cases)
    expect(fast.fastPathCalls() - before).toBe(calls.length - 3);
    expect(routed.fastPathCalls()).toBe(0);
  });

  it('on submits, their replays and refusals, byte for byte', async () => {
    const json = { Authorization: `Bearer ${keys.pro}`, 'Content-Type': 'application/json' };
    const submit = (key: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        idempotencyKey: key,
        candidate: { kind: 'structured', fullName: 'Sari Wulandari', summary: 'Backend engineer, TypeScript and PostgreSQL.', skills: ['TypeScript', 'PostgreSQL'], experienceYears: 6 },
        jobSpec: { title: 'Backend Engineer', mustHaves: ['TypeScript'], niceToHaves: ['AWS'] },
        ...extra,
      });
    const target = '/api/screening/v1/screen';
    const calls: Array<[Record<string, string>, string | Buffer, boolean]> = [
      // [headers, body, taken by the fast path]
      [json, submit('fp-1'), true],
      [json, submit('fp-1'), true],
      [{ ...json, Origin: 'https://docs.example' }, submit('fp-2'), true],
      [{ ...json, Origin: 'https://docs.example' }, submit('fp-2'), true],
      [{ ...json, 'Content-Type': 'application/vnd.api+json; charset=utf-8' }, submit('fp-3'), true],
      [json, submit('fp-1', { jobSpec: { title: 'Other' } }), true],
      [json, '{"idempotencyKey": "fp-4", ', true],
      [json, '', true],
      [json, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), true],
      [json, submit('fp-5', { candidate: { kind: 'structured' } }), true],
      [json, submit('x'.repeat(70_000)), true],
      [json, submit('fp-6', { jobSpec: { title: 'Backend', salaryBandMinIdr: 9, salaryBandMaxIdr: 1 } }), true],
      [{ ...json, 'Content-Type': 'text/plain' }, submit('fp-7'), false],
      [{ ...json, 'Content-Encoding': 'gzip' }, submit('fp-8'), false],
      [{ ...json, Authorization: 'Bearer rjk_live_0000000000000000000000' }, submit('fp-9'), false],
      [{ ...json, Authorization: `Bearer ${keys.jobsOnly}` }, submit('fp-10'), false],
      [{ ...json, 'Transfer-Encoding': 'chunked' }, submit('fp-11'), false],
      [json, 'x'.repeat(300_000), false],
    ];
    const before = fast.fastPathCalls();
    for (const [headers, body] of calls) {
      const { fast: a, routed: b } = await bothRaw(post(target, headers, body));
      expect(a, `POST ${JSON.stringify(headers)} ${String(body).slice(0, 80)}`).toBe(b);
    }
    expect(fast.fastPathCalls() - before).toBe(calls.filter(([, , taken]) => taken).length);
    // the key's balance moved alike: the same usage on both
    const usage = await both('/api/screening/v1/usage', { Authorization: `Bearer ${keys.pro}` });
    expect(usage.fast).toBe(usage.routed);
  });

  it('counts the rate window alike, up to the 429 and past it', async () => {
    const bearer = { Authorization: `Bearer ${keys.free}` };
    let last = { fast: '', routed: '' };
    for (let i = 0; i < 62 && !last.fast.startsWith('HTTP/1.1 429'); i++) {
      last = await both(i % 2 ? '/api/v1/jobs?limit=1' : `/api/v1/jobs/${jobId}`, bearer);
      expect(last.fast, `call ${i}`).toBe(last.routed);
    }
    expect(last.fast).toMatch(/^HTTP\/1\.1 429 /);
    expect(last.fast).toMatch(/^retry-after: \d+$/m);
  });

  it('applies chaos rules and planted bugs alike', async () => {
    // a tenant without submits: its audit page holds no rows stamped with either instance's clock
    const bearer = { Authorization: `Bearer ${keys.scale}` };
    await onBoth('POST', '/sandbox/v1/faults', { path: '/api/v1/jobs', mode: 'status', status: 503, count: 1 });
    await onBoth('POST', '/sandbox/v1/faults', { path: '/api/screening/v1/audit', mode: 'status', status: 429, count: 1 });
    await onBoth('POST', '/sandbox/v1/faults', { path: '/api/v1/jobs/', mode: 'latency', latencyMs: 30, count: 1 });
    await onBoth('POST', '/sandbox/v1/faults', { path: '/api/screening/v1/screen', mode: 'status', status: 500, count: 1 });
    for (const target of [`/api/v1/jobs/${jobId}`, `/api/v1/jobs/${jobId}`, '/api/screening/v1/audit', '/api/screening/v1/audit']) {
      const { fast: a, routed: b } = await both(target, bearer);
      expect(a, target).toBe(b);
    }
    const submit = post('/api/screening/v1/screen', { ...bearer, 'Content-Type': 'application/json' }, '{"idempotencyKey":"chaos-1"}');
    const forced = await bothRaw(submit);
    expect(forced.fast).toBe(forced.routed);
    expect(forced.fast).toMatch(/^HTTP\/1\.1 500 /);
    for (const bug of ['drop_ratelimit_remaining', 'no_retry_after']) await onBoth('PUT', `/sandbox/v1/bugs/${bug}`);
    await onBoth('POST', '/sandbox/v1/faults', { path: '*', mode: 'status', status: 429, count: 1 });
    try {
      for (const target of ['/api/v1/jobs?limit=1', `/api/v1/jobs/${jobId}`]) {
        const { fast: a, routed: b } = await both(target, bearer);
        expect(a, target).toBe(b);
        expect(a).not.toMatch(/^x-ratelimit-remaining/m);
        expect(a).not.toMatch(/^retry-after/im);
      }
    } finally {
      for (const bug of ['drop_ratelimit_remaining', 'no_retry_after']) await onBoth('DELETE', `/sandbox/v1/bugs/${bug}`);
    }
  });

  it('records the same calls in the request log', async () => {
    const entries = async (sb: RunningSandbox) => {
      const page = await admin(sb)('GET', '/sandbox/v1/logs?limit=500');
      expect(page.status).toBe(200);
      return (page.json.entries as Array<Record<string, unknown>>).map(({ at, durationMs, ...rest }) => {
        expect(typeof at).toBe('string');
        expect(typeof durationMs).toBe('number');
        // ledger rows carry the instant they were written and ids made from it
        const text = masked(JSON.stringify(rest), sb).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>').replace(/evt_[a-z0-9]+/g, 'evt_<id>');
        return JSON.parse(text);
      });
    };
    const a = await entries(fast);
    expect(a.length).toBeGreaterThan(80);
    expect(a.some((e) => e.path === `/api/v1/jobs/${jobId}` && e.status === 200 && String(e.responseBody).includes(jobId))).toBe(true);
    expect(a).toEqual(await entries(routed));
  });
});

describe('self-check on the fast path', () => {
  let checked: RunningSandbox;
  beforeAll(async () => {
    checked = await startSandbox({ host: '127.0.0.1', port: 0, anonMcpPort: 0, adminToken: ADMIN_TOKEN, seed: SEED, corpusSize: 300, selfCheck: true });
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
