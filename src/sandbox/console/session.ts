// Console sessions: an opaque random id in a browser-session cookie, mapped in memory to an
// authenticated session with its CSRF token and one-shot messages. The admin token never leaves
// the server after login.

import { randomBytes, timingSafeEqual } from 'node:crypto';

export const COOKIE = 'rjs_console';

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
  link?: { href: string; label: string };
}

export interface Session {
  id: string;
  csrf: string;
  flashes: Flash[];
  /** A newly created API key, shown once on the tenant page and then forgotten. */
  revealedKey: { tenantId: string; apiKey: string } | null;
  lastSeen: number;
}

const MAX_SESSIONS = 500;
// Idle expiry runs on the monotonic wall clock on purpose: moving the sandbox clock forward by
// days (a console action) must not log the person doing it out.
const IDLE_MS = 12 * 60 * 60 * 1000;

const token = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private sessions = new Map<string, Session>();

  create(): Session {
    this.sweep();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const s: Session = { id: token(), csrf: token(), flashes: [], revealedKey: null, lastSeen: performance.now() };
    this.sessions.set(s.id, s);
    return s;
  }

  get(id: string | undefined): Session | null {
    if (!id) return null;
    const s = this.sessions.get(id);
    if (!s) return null;
    if (performance.now() - s.lastSeen > IDLE_MS) {
      this.sessions.delete(id);
      return null;
    }
    s.lastSeen = performance.now();
    return s;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, s] of this.sessions) if (now - s.lastSeen > IDLE_MS) this.sessions.delete(id);
  }
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Set-Cookie value for a session: no Max-Age or Expires, so it ends with the browser session. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${COOKIE}=${id}; Path=/console; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

export function readCookie(header: string | undefined, name = COOKIE): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
