// Verifying an X-Screening-Signature header: `sha256=<hex>`, an HMAC-SHA256 over the RAW request body
// keyed with the tenant's webhookSecret. This is the one verification function of the harness, written
// the way a receiving client should write it (raw bytes, constant-time comparison, strict header shape);
// the webhook checks verify every delivery with it and prove that a tampered body fails it.

import { createHmac, timingSafeEqual } from 'node:crypto';

// hex digits in either case: the documents write `sha256=<hex>` and fix no case
const HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/** The header value a sender computes for `rawBody`. */
export function signatureFor(secret: string, rawBody: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** True only when `header` is a well-formed signature of exactly `rawBody` under `secret`. */
export function verifySignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | null | undefined,
): boolean {
  if (typeof header !== 'string' || !secret) return false;
  const m = HEADER.exec(header.trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(m[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The same body with one character changed (the first digit or letter flipped), for tamper checks. */
export function tamper(rawBody: string): string {
  const i = rawBody.search(/[0-9A-Za-z]/);
  if (i < 0) return `${rawBody} `;
  const c = rawBody[i];
  const flipped = /[0-9]/.test(c)
    ? String((Number(c) + 1) % 10)
    : c === c.toLowerCase()
      ? c.toUpperCase()
      : c.toLowerCase();
  return rawBody.slice(0, i) + flipped + rawBody.slice(i + 1);
}
