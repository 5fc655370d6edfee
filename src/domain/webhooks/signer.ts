// Webhook signatures: `X-Screening-Signature: sha256=<hex>`, an HMAC-SHA256 of the raw request body
// keyed with the tenant's webhook secret. Receivers (and the conformance harness) verify with
// `verify`, which compares in constant time.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Screening-Signature';
const PREFIX = 'sha256=';

export function sign(secret: string, rawBody: string | Uint8Array): string {
  return PREFIX + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** True when `header` is the signature of exactly `rawBody` under `secret`. */
export function verify(secret: string, rawBody: string | Uint8Array, header: string | null | undefined): boolean {
  if (typeof header !== 'string' || !header.startsWith(PREFIX)) return false;
  const hex = header.slice(PREFIX.length).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}
