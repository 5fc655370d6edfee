// The hot path of a shared sandbox's recorded calls (D-144): a recorded submit is answered on the REST
// fast path (the instance that takes the call runs it there, every other instance replays the step there
// too, and the answer is the routed app's: status, header names in their case and order, body); the page
// of steps each round trip reads after its own is found by the log's index, not by reading the log whole,
// however small the log was when the instance began writing (D-183); and a body goes into the log as an
// escape-format bytea literal that PostgreSQL reads back byte for byte.

import { request } from 'node:http';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { byteaLiteral } from '../src/replication/replica.js';
import {
  postgresUnavailable,
  sharedInstances,
  sqlRows as sql,
  startTestDatabase,
  type TestDatabase,
} from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';

interface Raw {
  status: number;
  /** Header names as sent, in order (Date and Keep-Alive's timing left out: they vary). */
  names: string[];
  headers: Record<string, string>;
  json: any;
}

/** A POST over raw HTTP, keeping the answer's header lines as they came. */
function rawPost(base: string, path: string, apiKey: string, body: unknown): Promise<Raw> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const names: string[] = [];
          const headers: Record<string, string> = {};
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i];
            headers[name.toLowerCase()] = res.rawHeaders[i + 1];
            if (name.toLowerCase() !== 'date') names.push(name);
          }
          resolve({ status: res.statusCode!, names, headers, json: JSON.parse(Buffer.concat(chunks).toString()) });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function tenantOn(sb: RunningSandbox, screeningCredits?: number): Promise<string> {
  const admin = client(sb.listenUrl, ADMIN_TOKEN);
  const res = await admin('POST', '/sandbox/v1/tenants', { planTier: 'scale' });
  expect(res.status, res.text).toBe(201);
  if (screeningCredits !== undefined) {
    const topUp = await admin('PATCH', `/sandbox/v1/tenants/${res.json.tenantId}`, { screeningCredits });
    expect(topUp.status, topUp.text).toBe(200);
  }
  return res.json.apiKey as string;
}

/** The shape of a JSON value: its keys (sorted) and the types of its leaves, recursively. */
const shape = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(shape)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, shape((v as Record<string, unknown>)[k])]),
        )
      : typeof v;

describe.skipIf(why !== null)('shared sandbox: recorded submits on the REST fast path', () => {
  let fastDb: TestDatabase;
  let routedUrl: string;
  const fast = sharedInstances(PUBLIC_URL);
  const routed = sharedInstances(PUBLIC_URL, { fastPath: false });
  const running: RunningSandbox[] = [];
  beforeAll(async () => {
    fastDb = await startTestDatabase();
    routedUrl = await fastDb.another();
  }, 120_000);
  afterAll(async () => {
    for (const sb of running) await sb.close().catch(() => {});
    await fastDb?.stop();
  });

  it('takes a submit on the fast path, replays it there on the other instance, and answers as the routed app', async () => {
    const a = await fast.start(fastDb.url);
    running.push(a);
    const b = await fast.start(fastDb.url);
    running.push(b);
    const r = await routed.start(routedUrl);
    running.push(r);
    const keyFast = await tenantOn(a);
    const keyRouted = await tenantOn(r);

    const body = submitBody();
    const before = a.fastPathCalls();
    const seen = b.fastPathCalls();
    const onFast = await rawPost(a.listenUrl, `${SCREENING}/screen`, keyFast, body);
    const onRouted = await rawPost(r.listenUrl, `${SCREENING}/screen`, keyRouted, body);
    expect(onFast.status).toBe(201);
    expect(a.fastPathCalls()).toBe(before + 1);
    expect(r.fastPathCalls()).toBe(0);
    expect(onFast.status).toBe(onRouted.status);
    expect(onFast.names).toEqual(onRouted.names);
    expect(onFast.headers['content-type']).toBe(onRouted.headers['content-type']);
    expect(shape(onFast.json)).toEqual(shape(onRouted.json));

    // the other instance applies the step (before its own next call at the latest) on its fast path too
    const again = await rawPost(b.listenUrl, `${SCREENING}/screen`, keyFast, body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json.requestId).toBe(onFast.json.requestId);
    // a's step replayed, then b's own call: both taken by b's fast path
    expect(b.fastPathCalls()).toBe(seen + 2);
    const routedAgain = await rawPost(r.listenUrl, `${SCREENING}/screen`, keyRouted, body);
    expect(again.names).toEqual(routedAgain.names);

    const audit = await client(b.listenUrl, keyFast)('GET', `${SCREENING}/audit?limit=50`);
    expect(audit.status).toBe(200);
    expect(audit.json.events.some((e: any) => e.requestId === onFast.json.requestId)).toBe(true);
    expect(fast.failures).toEqual([]);
    expect(routed.failures).toEqual([]);
  }, 120_000);

  it("reads the steps after its own by the log's index however small the log was when it began writing", async () => {
    // the instance begins writing on a log of a few steps; no ANALYZE of the log (whose new statistics would make any
    // connection plan again) runs while the log grows
    const url = await fastDb.another();
    const sb = await fast.start(url, { snapshotEvery: 1_000_000 });
    running.push(sb);
    await sql(url, 'ALTER TABLE sandbox_log SET (autovacuum_enabled = false)');
    const key = await tenantOn(sb, 10_000);
    const screen = async () =>
      expect((await rawPost(sb.listenUrl, `${SCREENING}/screen`, key, submitBody())).status).toBe(201);
    for (let round = 0; round < 60; round++) await Promise.all(Array.from({ length: 50 }, screen));
    // a backend reports what it read once it is idle outside a transaction and a second has passed since it last did
    const reported = async () => {
      await new Promise((r) => setTimeout(r, 1_200));
      await screen();
      await new Promise((r) => setTimeout(r, 200));
      const [row] = await sql<{ read: string; steps: string }>(
        url,
        `SELECT seq_tup_read AS read, (SELECT max(seq) FROM sandbox_log) AS steps FROM pg_stat_user_tables WHERE relname = 'sandbox_log'`,
      );
      return { read: Number(row.read), steps: Number(row.steps) };
    };
    const before = await reported();
    expect(before.steps).toBeGreaterThan(3_000);
    // one call at a time: a batch and its round trips each
    for (let i = 0; i < 30; i++) await screen();
    const after = await reported();
    // the 31 round trips together read fewer rows of the log by scanning it than it holds (each read it whole, D-183;
    // the steps are counted by the index, as no step was pruned)
    expect(after.read - before.read).toBeLessThan(before.steps);
    expect(fast.failures).toEqual([]);
  }, 120_000);
});

describe.skipIf(why !== null)('shared sandbox: a body in the log', () => {
  let db: TestDatabase;
  let conn: pg.Client;
  beforeAll(async () => {
    db = await startTestDatabase();
    conn = new pg.Client({ connectionString: db.url });
    await conn.connect();
    // as the replica's writer sets it
    await conn.query('SET standard_conforming_strings = on');
  }, 120_000);
  afterAll(async () => {
    await conn?.end();
    await db?.stop();
  });

  it('is read back as the same bytes, whatever they are', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      // text with the bytes that need escaping: quotes, backslashes (a leading \x too), controls, UTF-8
      fc
        .array(fc.constantFrom("'", '\\', '\\x', '\\000', '\n', '\u0000', 'é', '日本', '{"a":1}', 'x'), {
          maxLength: 40,
        })
        .map((parts) => new TextEncoder().encode(parts.join(''))),
    );
    await fc.assert(
      fc.asyncProperty(bytes, async (b) => {
        const buf = Buffer.from(b);
        const { rows } = await conn.query<{ b: Buffer }>(`SELECT ${byteaLiteral(buf)} AS b`);
        expect(rows[0].b.equals(buf)).toBe(true);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
