// Opaque audit cursors: base64url of a versioned JSON position ({v, t: tenant, s: sequence}) plus an
// HMAC tag under the store's secret. A cursor cannot be forged, edited, or replayed by another
// tenant, and a cursor from another store (or a restarted in-memory sandbox) is refused rather than misread.
// Requirements: SCR-AUDIT-4, SCR-AUDIT-5, POL-AUDIT-1, POL-AUDIT-3; decisions D-21, D-110.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../errors/errors.js';

const VERSION = 1;
const TAG_BYTES = 16;

interface CursorBody {
  v: number;
  t: string;
  s: number;
}

export class CursorCodec {
  constructor(private readonly secret: Buffer = randomBytes(32)) {}

  encode(tenantId: string, seq: number): string {
    const body = Buffer.from(JSON.stringify({ v: VERSION, t: tenantId, s: seq } satisfies CursorBody)).toString(
      'base64url',
    );
    return `${body}.${this.tag(body).toString('base64url')}`;
  }

  /** The sequence number the cursor points after; 400 naming `cursor` for anything else. */
  decode(tenantId: string, cursor: string): number {
    const bad = (why: string) =>
      invalid(`cursor is not valid: ${why}; pass a nextCursor from a previous page unchanged`, 'cursor');
    const dot = cursor.indexOf('.');
    if (dot <= 0 || cursor.length > 512) throw bad('malformed');
    const body = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = this.tag(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw bad('it was not issued by this sandbox');
    let parsed: CursorBody;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw bad('malformed');
    }
    if (parsed?.v !== VERSION) throw bad(`unsupported version ${String(parsed?.v)}`);
    if (parsed.t !== tenantId) throw bad('it belongs to another tenant');
    if (!Number.isSafeInteger(parsed.s) || parsed.s < 0) throw bad('malformed position');
    return parsed.s;
  }

  private tag(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, TAG_BYTES);
  }
}
