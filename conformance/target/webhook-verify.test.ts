import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signatureFor, tamper, verifySignature } from './webhook-verify.js';

describe('webhook signature verification', () => {
  it('accepts the HMAC-SHA256 of the raw body computed independently', () => {
    const body = '{"requestId":"scr_1","event":"screening.scored"}';
    const hex = createHmac('sha256', 'whsec_test').update(body).digest('hex');
    expect(verifySignature('whsec_test', body, `sha256=${hex}`)).toBe(true);
  });

  it('rejects a wrong secret, a tampered body, and malformed headers', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.json(), (secret, other, body) => {
        const header = signatureFor(secret, body);
        expect(verifySignature(secret, body, header)).toBe(true);
        expect(verifySignature(secret, tamper(body), header)).toBe(false);
        if (other !== secret) expect(verifySignature(other, body, header)).toBe(false);
        expect(verifySignature(secret, body, header.toUpperCase())).toBe(false);
        expect(verifySignature(secret, body, header.slice('sha256='.length))).toBe(false);
        expect(verifySignature(secret, body, `${header}00`)).toBe(false);
        expect(verifySignature(secret, body, undefined)).toBe(false);
      }),
    );
  });

  it('tamper always changes the body', () => {
    fc.assert(fc.property(fc.string(), (s) => tamper(s) !== s));
  });
});
