// Webhook signatures: `X-Screening-Signature: sha256=<hex>`, an HMAC-SHA256 of the raw request body
// keyed with the tenant's webhook secret. Receivers (and the conformance harness) verify with
// `verify`, which compares in constant time. While a rotated-out secret is still in its overlap
// window, `X-Screening-Signature-Previous` carries the same body signed with that secret (D-101):
// a receiver holding either secret accepts the delivery with `verifyAny`.
// Requirements: SCR-HOOK-6, SCR-HOOK-7.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Screening-Signature';
export const PREVIOUS_SIGNATURE_HEADER = 'X-Screening-Signature-Previous';
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

/** True when any of the signature headers (current, previous) verifies under `secret`. */
export function verifyAny(
  secret: string,
  rawBody: string | Uint8Array,
  headers: readonly (string | null | undefined)[],
): boolean {
  let ok = false;
  // every header is checked, so the time taken does not tell which one matched
  for (const h of headers) ok = verify(secret, rawBody, h) || ok;
  return ok;
}
