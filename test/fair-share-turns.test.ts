import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callerOf, fairShare, type FairShare } from '../src/web/fairShare.js';
import { waitFor } from './support/screening.js';

// A server whose calls are held open until the test ends them, so which calls started is observable.
interface Held {
  caller: string;
  tag: string;
  res: ServerResponse;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serveHeld(turns: FairShare): Promise<{ port: number; started: Held[] }> {
  const started: Held[] = [];
  const s = createServer((req: IncomingMessage, res: ServerResponse) =>
    turns.admit(req, res, () => {
      started.push({ caller: callerOf(req), tag: String(req.headers['x-tag']), res });
    }),
  );
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { port: (s.address() as AddressInfo).port, started };
}

/** A call on a connection of its own; resolves with its status, or 'aborted'. */
function call(port: number, key: string | null, tag: string, signal?: AbortSignal): Promise<number | 'aborted'> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        agent: false,
        signal,
        headers: { 'x-tag': tag, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve('aborted'));
    req.end();
  });
}

const tags = (started: Held[]) => started.map((h) => h.tag);
const finish = (h: Held) => h.res.end('ok');

/** `times` calls of another caller, each answered at once. */
async function callsOf(port: number, started: Held[], key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const n = started.length;
    const answer = call(port, key, 'z');
    await waitFor(() => started.length === n + 1, 'the other caller started');
    finish(started.splice(n, 1)[0]);
    expect(await answer).toBe(200);
  }
}

/** Two calls of another caller, answered at once: from now on the callers are contended (D-171). */
const contend = (port: number, started: Held[], key = 'key-z') => callsOf(port, started, key, 2);

describe('turns between callers (D-165)', () => {
  it("starts another caller's call at once while one caller's calls beyond the limit wait, in arrival order", async () => {
    const turns = fairShare({ limit: 2, holdMs: 60_000 });
    const { port, started } = await serveHeld(turns);
    await contend(port, started);
    const answers: Promise<number | 'aborted'>[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(call(port, 'key-a', `a${i}`));
      await waitFor(() => started.length + turns.waiting() === i + 1, `a${i} admitted or waiting`);
    }
    expect(tags(started)).toEqual(['a0', 'a1']);
    expect(turns.waiting()).toBe(3);

    answers.push(call(port, 'key-b', 'b0'));
    await waitFor(() => tags(started).includes('b0'), 'b0 started');
    expect(tags(started)).toEqual(['a0', 'a1', 'b0']);

    // each of a's calls that ends gives the next of a's its turn, oldest first
    finish(started[1]);
    await waitFor(() => started.length === 4, 'a2 started');
    finish(started[0]);
    await waitFor(() => started.length === 5, 'a3 started');
    expect(tags(started)).toEqual(['a0', 'a1', 'b0', 'a2', 'a3']);
    for (const h of started.slice(2)) finish(h);
    await waitFor(() => started.length === 6, 'a4 started');
    finish(started[5]);
    expect(await Promise.all(answers)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(turns.waiting()).toBe(0);
  });

  it('keys a call by its credential, else its cookies, else its client address', () => {
    const req = (headers: Record<string, string>) =>
      ({
        rawHeaders: Object.entries(headers).flat(),
        socket: { remoteAddress: '::ffff:127.0.0.9' },
      }) as unknown as IncomingMessage;
    expect(callerOf(req({ Authorization: 'Bearer k1', cookie: 's=1' }))).toBe('Bearer k1');
    expect(callerOf(req({ 'X-Api-Key': 'k2' }))).toBe('k2');
    expect(callerOf(req({ Cookie: 's=1' }))).toBe('s=1');
    expect(callerOf(req({}))).toBe('@127.0.0.9');
    expect(callerOf(req({ authorization: '' }))).toBe('@127.0.0.9');
    expect(callerOf(req({ authorization: 'Bearer k1' }))).not.toBe(callerOf(req({ authorization: 'Bearer k3' })));
  });

  it('never starts a waiting call whose client left, and gives its turn to the next', async () => {
    const turns = fairShare({ limit: 1, holdMs: 60_000 });
    const { port, started } = await serveHeld(turns);
    await contend(port, started);
    const first = call(port, 'key-a', 'a0');
    await waitFor(() => started.length === 1, 'a0 started');
    const gone = new AbortController();
    const left = call(port, 'key-a', 'a1', gone.signal);
    await waitFor(() => turns.waiting() === 1, 'a1 waiting');
    const third = call(port, 'key-a', 'a2');
    await waitFor(() => turns.waiting() === 2, 'a2 waiting');
    gone.abort();
    expect(await left).toBe('aborted');
    await new Promise((r) => setTimeout(r, 50));
    finish(started[0]);
    await waitFor(() => started.length === 2, 'a2 started');
    expect(tags(started)).toEqual(['a0', 'a2']);
    finish(started[1]);
    expect([await first, await third]).toEqual([200, 200]);
  });

  it('gives the turn of a call held open back after holdMs, so a stream never blocks its caller', async () => {
    const turns = fairShare({ limit: 1, holdMs: 100 });
    const { port, started } = await serveHeld(turns);
    await contend(port, started);
    void call(port, 'key-a', 'stream');
    await waitFor(() => started.length === 1, 'stream started');
    const t0 = performance.now();
    const next = call(port, 'key-a', 'a1');
    await waitFor(() => started.length === 2, 'a1 started');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
    finish(started[1]);
    expect(await next).toBe(200);
    finish(started[0]);
  });

  it('holds no call of a caller alone, and holds its calls again only while another caller calls', async () => {
    const turns = fairShare({ limit: 1, holdMs: 60_000, activeMs: 150 });
    const { port, started } = await serveHeld(turns);
    const answers = [0, 1, 2].map((i) => call(port, 'key-a', `alone${i}`));
    await waitFor(() => started.length === 3, 'all three started');
    expect(turns.waiting()).toBe(0);
    await contend(port, started);
    // calls count from the first that starts while another caller calls: a's three calls from before do not
    answers.push(call(port, 'key-a', 'counted'));
    await waitFor(() => tags(started).includes('counted'), 'the first call while contended started');
    answers.push(call(port, 'key-a', 'contended'));
    await waitFor(() => turns.waiting() === 1, 'the call waiting');
    expect(tags(started)).toEqual(['alone0', 'alone1', 'alone2', 'counted']);
    // the other caller quiet for two periods: a's next call starts though three of its calls are in progress, after
    // the one that waited
    await new Promise((r) => setTimeout(r, 320));
    answers.push(call(port, 'key-a', 'quiet'));
    await waitFor(() => tags(started).includes('quiet'), 'the new call started');
    expect(tags(started)).toEqual(['alone0', 'alone1', 'alone2', 'counted', 'contended', 'quiet']);
    expect(turns.waiting()).toBe(0);
    for (const h of started) finish(h);
    expect(await Promise.all(answers)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it("holds no call for another caller's one call, however long it takes; holds them from its second (D-171)", async () => {
    const turns = fairShare({ limit: 1, holdMs: 60_000, activeMs: 60_000 });
    const { port, started } = await serveHeld(turns);
    // the other caller's one call, still in progress
    const slow = call(port, 'key-z', 'one');
    await waitFor(() => started.length === 1, 'its call started');
    const answers = [0, 1, 2].map((i) => call(port, 'key-a', `a${i}`));
    await waitFor(() => started.length === 4, "a's three calls started");
    expect(turns.waiting()).toBe(0);
    // its second call: a caller that is calling; a's calls count from the next one
    await callsOf(port, started, 'key-z', 1);
    answers.push(call(port, 'key-a', 'counted'));
    await waitFor(() => tags(started).includes('counted'), 'the first call while contended started');
    answers.push(call(port, 'key-a', 'held'));
    await waitFor(() => turns.waiting() === 1, "a's next call waiting");
    expect(tags(started)).toEqual(['one', 'a0', 'a1', 'a2', 'counted']);
    for (const h of started.splice(0)) finish(h);
    await waitFor(() => tags(started).includes('held'), 'the held call started once a call of its own ended');
    for (const h of started) finish(h);
    expect(await Promise.all([slow, ...answers])).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it("starts a lighter caller's calls beyond the limit while another presses twice as hard, and holds it once it does not (D-197)", async () => {
    const turns = fairShare({ limit: 2, holdMs: 60_000 });
    const { port, started } = await serveHeld(turns);
    await contend(port, started);
    // a presses: 2 calls in progress, 6 waiting
    const answers: Promise<number | 'aborted'>[] = [];
    const send = async (key: string, tag: string, state: 'started' | 'waiting') => {
      const waiting = turns.waiting();
      answers.push(call(port, key, tag));
      if (state === 'started') await waitFor(() => tags(started).includes(tag), `${tag} started`);
      else await waitFor(() => turns.waiting() === waiting + 1, `${tag} waiting`);
    };
    for (let i = 0; i < 8; i++) await send('key-a', `a${i}`, i < 2 ? 'started' : 'waiting');
    // b: with its next call, at most half of a's 8 calls: four start, the fifth (5 of 8) waits
    for (let i = 0; i < 5; i++) await send('key-b', `b${i}`, i < 4 ? 'started' : 'waiting');
    expect(tags(started).filter((t) => t.startsWith('b'))).toEqual(['b0', 'b1', 'b2', 'b3']);
    // a's calls grow to 10: b's waiting call starts (5 of 10), a's never start beyond its limit meanwhile
    await send('key-a', 'a8', 'waiting');
    expect(tags(started)).not.toContain('b4');
    answers.push(call(port, 'key-a', 'a9'));
    await waitFor(() => tags(started).includes('b4'), 'b4 started');
    expect(tags(started).filter((t) => t.startsWith('a'))).toEqual(['a0', 'a1']);
    expect(turns.waiting()).toBe(8);
    // b's calls end: a, the one pressing, still starts one call for each of its own that ends
    for (const h of started.filter((x) => x.tag.startsWith('b'))) finish(h);
    await new Promise((r) => setTimeout(r, 50));
    expect(tags(started).filter((t) => t.startsWith('a'))).toEqual(['a0', 'a1']);
    finish(started.find((x) => x.tag === 'a0')!);
    await waitFor(() => tags(started).includes('a2'), 'a2 started');
    expect(turns.waiting()).toBe(7);
    for (const h of started.splice(0)) finish(h);
    while (turns.waiting() > 0 || started.length) {
      await waitFor(() => started.length > 0, 'the next held call started');
      for (const h of started.splice(0)) finish(h);
    }
    // two callers pressing alike are held alike: each has two calls in progress and two waiting
    for (const key of ['key-c', 'key-d'])
      for (let i = 0; i < 4; i++) await send(key, `${key}${i}`, i < 2 ? 'started' : 'waiting');
    expect(tags(started)).toEqual(['key-c0', 'key-c1', 'key-d0', 'key-d1']);
    expect(turns.waiting()).toBe(4);
    while (turns.waiting() > 0 || started.length) {
      await waitFor(() => started.length > 0, 'the next held call started');
      for (const h of started.splice(0)) finish(h);
    }
    expect((await Promise.all(answers)).every((a) => a === 200)).toBe(true);
  });

  it('limits nothing with limit 0', async () => {
    const turns = fairShare({ limit: 0 });
    const { port, started } = await serveHeld(turns);
    await contend(port, started);
    for (let i = 0; i < 4; i++) void call(port, 'key-a', `a${i}`);
    await waitFor(() => started.length === 4, 'all four started');
    expect(turns.waiting()).toBe(0);
    for (const h of started) finish(h);
  });
});
