// Reading the wallet (GET /me): an answer other than 200 is a JOB-ME-1 violation; no answer at all (a
// transport failure) is a harness error, never a verdict on the target.
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../check.js';
import { Violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import { readWallet } from './wallet.js';

const request = { method: 'GET', url: 'http://127.0.0.1:1/api/v1/me', headers: {} };
const contextAnswering = (answers: Exchange[]) =>
  ({ target: { call: async () => answers.shift()! } }) as unknown as CheckContext;
const answer = (status: number, json: unknown): Exchange => ({
  request,
  response: { status, headers: {}, body: JSON.stringify(json), json },
  durationMs: 1,
});

describe('readWallet', () => {
  it('reads two 200 answers', async () => {
    const w = await readWallet(contextAnswering([answer(200, { credits: 3 }), answer(200, { credits: 3 })]), 'k');
    expect(w.noise.size).toBe(0);
  });

  it('reports an answer other than 200 as a JOB-ME-1 violation', async () => {
    const e = await readWallet(
      contextAnswering([answer(500, { error: { code: 'internal', message: 'x' } })]),
      'k',
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Violation);
    expect((e as Violation).requirement).toBe('JOB-ME-1');
  });

  it('reports a transport failure as a harness error, not a violation', async () => {
    const reset: Exchange = { request, error: 'TypeError: fetch failed (ECONNRESET)', durationMs: 1 };
    const e = await readWallet(contextAnswering([answer(200, {}), reset]), 'k').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(Violation);
    expect(String((e as Error).message)).toMatch(/ECONNRESET/);
  });
});
