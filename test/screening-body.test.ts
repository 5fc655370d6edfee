// The submit body read straight from Node's request stream: bodies in many pieces, without a
// Content-Length, too large (413), or not UTF-8 get the answers they name; and audit pages, sent as
// prebuilt text, carry exactly the bytes and headers of a JSON response, request after request.

import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const checked = useSandbox({ seedDemo: false, corpusSize: 50 });
// without the self-check, responses go out exactly as the routes build them
const raw = useSandbox({ seedDemo: false, corpusSize: 50, selfCheck: false });

/** POSTs `pieces` one after another, chunked (no Content-Length), with a pause between them. */
function postInPieces(baseUrl: string, apiKey: string, pieces: Buffer[]): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}${SCREENING}/screen`,
      { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    let i = 0;
    const next = () => {
      if (i === pieces.length) return void req.end();
      req.write(pieces[i++]);
      setTimeout(next, 5);
    };
    next();
  });
}

const split = (b: Buffer, n: number) =>
  Array.from({ length: Math.ceil(b.length / n) }, (_, i) => b.subarray(i * n, (i + 1) * n));

describe('submit bodies', () => {
  it('reads a body that arrives in many chunked pieces, multi-byte characters split between them', async () => {
    const base = checked.get().baseUrl;
    const t = await createTenant(base, { planTier: 'pro' });
    const body = submitBody({ candidate: { kind: 'structured', fullName: 'Ségolène Ñúñez 😀', skills: ['Go'] } });
    const res = await postInPieces(base, t.apiKey, split(Buffer.from(JSON.stringify(body)), 7));
    expect(res.status).toBe(201);
    const id = res.json.requestId;
    await waitFor(() => checked.get().core.screening.get(id)?.state === 'pending_review', 'pipeline');
    expect(checked.get().core.screening.get(id)!.submission.candidate).toEqual(body.candidate);
  });

  it('refuses an oversized body without a Content-Length with 413 naming the limit, and a body that is not UTF-8', async () => {
    const base = checked.get().baseUrl;
    const t = await createTenant(base, { planTier: 'pro' });
    const big = Buffer.from(JSON.stringify({ ...submitBody(), pad: 'x'.repeat(300_000) }));
    const oversized = await postInPieces(base, t.apiKey, split(big, 64 * 1024));
    expect(oversized.status).toBe(413);
    expect(oversized.json.error).toEqual({
      code: 'invalid_request',
      message: 'request body is larger than the limit of 262144 bytes',
    });
    const latin1 = await postInPieces(base, t.apiKey, [
      Buffer.from('{"idempotencyKey":"'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    expect(latin1.status).toBe(400);
    expect(latin1.json.error.message).toBe('request body is not valid UTF-8');
    const usage = await client(base, t.apiKey)('GET', `${SCREENING}/usage`);
    expect(usage.json.creditsRemaining).toBe(usage.json.creditsCap);
  });
});

describe('audit pages', () => {
  it('answer the same bytes and headers as a JSON response, again and again', async () => {
    const { baseUrl, core } = raw.get();
    const t = await createTenant(baseUrl, { planTier: 'scale' });
    const api = client(baseUrl, t.apiKey);
    for (let i = 0; i < 30; i++) expect((await api('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
    await waitFor(
      () => core.screening.list({ tenantId: t.tenantId }).every((r) => r.state === 'pending_review'),
      'pipelines',
    );
    const expected = JSON.stringify(core.screening.audit(t.tenantId, { limit: 50 }));
    for (let i = 0; i < 5; i++) {
      const res = await api('GET', `${SCREENING}/audit?limit=50`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(expected);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
    }
  });
});
