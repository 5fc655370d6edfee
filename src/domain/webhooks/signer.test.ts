import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign, verify } from './signer.js';

describe('webhook signer', () => {
  const body = '{"requestId":"scr_1","event":"screening.scored"}';

  it('signs the raw body with HMAC-SHA256 as sha256=<hex>', () => {
    const expected = createHmac('sha256', 'whsec_abc').update(body).digest('hex');
    expect(sign('whsec_abc', body)).toBe(`sha256=${expected}`);
  });

  it('verifies only the exact body under the exact secret', () => {
    const sig = sign('whsec_abc', body);
    expect(verify('whsec_abc', body, sig)).toBe(true);
    expect(verify('whsec_abc', Buffer.from(body), sig)).toBe(true);
    expect(verify('whsec_abd', body, sig)).toBe(false);
    expect(verify('whsec_abc', `${body} `, sig)).toBe(false);
    for (const bad of [undefined, null, '', 'sha256=', sig.slice(0, -2), sig.replace('sha256=', 'sha1='), `${sig}00`]) {
      expect(verify('whsec_abc', body, bad)).toBe(false);
    }
  });
});
