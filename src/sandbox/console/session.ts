// Console sessions (D-141) hold nothing in one instance's memory, so every instance of a shared sandbox
// (D-112) serves every console session without sticky routing. The session cookie is signed with a key
// derived from the admin token (the same on every instance, D-113) and carries only a random session id
// and when it was last used; the CSRF token is derived from the session id with that key; one-shot
// messages and a new API key shown once travel in a short-lived cookie encrypted with another derived key.
// A sign-out is remembered where every instance sees it (SignOuts: PostgreSQL on a shared sandbox). The
// admin token never reaches the browser; a session idle for 12 h of real time ends (moving the sandbox
// clock must not log the person doing it out).

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Core } from '../../domain/core.js';

export const COOKIE = 'rjs_console';
export const FLASH_COOKIE = 'rjs_console_flash';

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
  /** Real time (ms) of the last request the cookie was renewed on. */
  lastSeen: number;
  /** Signed out during this request: the cookie is not renewed. */
  ended: boolean;
}

/** Where sign-outs are remembered until the session would have expired anyway. */
export interface SignOuts {
  add(sessionId: string, untilMs: number): Promise<void>;
  has(sessionId: string): Promise<boolean>;
}

const IDLE_MS = 12 * 60 * 60 * 1000;
/** A session's cookie is re-issued (its idle time restarted) at most this often. */
const RENEW_MS = 60 * 1000;
/** One-shot messages live for a redirect, not longer. */
const FLASH_MS = 5 * 60 * 1000;

const b64 = (b: Buffer) => b.toString('base64url');
const derive = (secret: string, purpose: string) => createHmac('sha256', secret).update(purpose).digest();
/** Sign-outs are stored by a digest of the session id, never the id itself. */
export const signOutKey = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

/** One process: sign-outs in memory (a shared sandbox passes its PostgreSQL table). */
export class MemorySignOuts implements SignOuts {
  private readonly until = new Map<string, number>();
  add(sessionId: string, untilMs: number): Promise<void> {
    const now = Date.now();
    for (const [k, t] of this.until) if (t < now) this.until.delete(k);
    this.until.set(signOutKey(sessionId), untilMs);
    return Promise.resolve();
  }
  has(sessionId: string): Promise<boolean> {
    return Promise.resolve((this.until.get(signOutKey(sessionId)) ?? 0) >= Date.now());
  }
}

export class SessionStore {
  private readonly key: Buffer;
  private readonly flashKey: Buffer;

  constructor(
    adminToken: string,
    private readonly signOuts: SignOuts,
  ) {
    this.key = derive(adminToken, 'rjs console session v1');
    this.flashKey = derive(adminToken, 'rjs console flash v1');
  }

  create(): Session {
    const id = b64(randomBytes(32));
    return { id, csrf: this.csrfOf(id), flashes: [], revealedKey: null, lastSeen: Date.now(), ended: false };
  }

  /** The session a cookie names: null when it is forged, idle for too long, or signed out. */
  async read(cookie: string | undefined): Promise<Session | null> {
    const parts = cookie?.split('.');
    if (!parts || parts.length !== 3) return null;
    const [id, seen, mac] = parts;
    if (!/^[A-Za-z0-9_-]{43}$/.test(id) || !/^\d{1,15}$/.test(seen)) return null;
    if (!sameSecret(mac, this.mac(`${id}.${seen}`))) return null;
    const lastSeen = Number(seen);
    if (Date.now() - lastSeen > IDLE_MS || (await this.signOuts.has(id))) return null;
    return { id, csrf: this.csrfOf(id), flashes: [], revealedKey: null, lastSeen, ended: false };
  }

  /** The cookie value for a new session, or a renewed one when the last was issued a while ago; else null. */
  cookieOf(s: Session, fresh = false): string | null {
    if (s.ended || (!fresh && Date.now() - s.lastSeen < RENEW_MS)) return null;
    const seen = String(Date.now());
    return `${s.id}.${seen}.${this.mac(`${s.id}.${seen}`)}`;
  }

  async destroy(s: Session): Promise<void> {
    s.ended = true;
    await this.signOuts.add(s.id, Date.now() + IDLE_MS);
  }

  /** The session's pending messages and revealed key, encrypted for its flash cookie; null when there are none. */
  sealFlash(s: Session): string | null {
    if (!s.flashes.length && !s.revealedKey) return null;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.flashKey, iv);
    cipher.setAAD(Buffer.from(s.id));
    const plain = JSON.stringify({ f: s.flashes, k: s.revealedKey, t: Date.now() });
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${b64(iv)}.${b64(sealed)}.${b64(cipher.getAuthTag())}`;
  }

  /** Puts what a flash cookie of this session holds into it (nothing when forged, stale or another session's). */
  openFlash(s: Session, cookie: string | undefined): void {
    const parts = cookie?.split('.');
    if (!parts || parts.length !== 3) return;
    try {
      const [iv, sealed, tag] = parts.map((p) => Buffer.from(p, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', this.flashKey, iv);
      decipher.setAAD(Buffer.from(s.id));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
      const v = JSON.parse(plain) as { f: Flash[]; k: Session['revealedKey']; t: number };
      if (Date.now() - v.t > FLASH_MS) return;
      s.flashes.push(...v.f);
      s.revealedKey = v.k;
    } catch {
      // a forged or damaged cookie carries nothing
    }
  }

  private csrfOf(id: string): string {
    return this.mac(`csrf.${id}`);
  }

  private mac(text: string): string {
    return b64(createHmac('sha256', this.key).update(text).digest());
  }
}

const stores = new WeakMap<Core, SessionStore>();
const signOutsByCore = new WeakMap<Core, SignOuts>();

/** Gives the console of a shared sandbox the sign-outs every instance sees (before it serves). */
export function useConsoleSignOuts(core: Core, signOuts: SignOuts): void {
  signOutsByCore.set(core, signOuts);
  stores.delete(core);
}

/** The console sessions of a core: keyed from its admin token. */
export function sessionsOf(core: Core): SessionStore {
  let s = stores.get(core);
  if (!s) {
    const signOuts = signOutsByCore.get(core) ?? new MemorySignOuts();
    signOutsByCore.set(core, signOuts);
    s = new SessionStore(core.config.adminToken, signOuts);
    stores.set(core, s);
  }
  return s;
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Set-Cookie value for a session: no Max-Age or Expires, so it ends with the browser session. */
export function sessionCookie(value: string, secure: boolean): string {
  return `${COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean, name = COOKIE): string {
  return `${name}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** Set-Cookie value for a session's one-shot messages (encrypted; gone after a few minutes). */
export function flashCookie(value: string, secure: boolean): string {
  return `${FLASH_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${FLASH_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function readCookie(header: string | undefined, name = COOKIE): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
