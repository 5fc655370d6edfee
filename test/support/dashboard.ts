// A browser-like client of the account dashboard for tests through real HTTP: it keeps the session
// cookie, posts urlencoded forms with the page's CSRF token, does not follow redirects (tests look at
// them), and can speak from its own loopback address (127.0.0.x), so per-address limits are per client.

import { request } from 'node:http';

export interface Answer {
  status: number;
  location: string | null;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class DashboardClient {
  cookie = '';

  constructor(
    public base: string,
    readonly from = '127.0.0.1',
  ) {}

  send(
    method: string,
    path: string,
    form?: Record<string, string>,
    extra: Record<string, string> = {},
  ): Promise<Answer> {
    const url = new URL(path, this.base);
    const body = form ? new URLSearchParams(form).toString() : undefined;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          localAddress: this.from,
          headers: {
            ...(this.cookie ? { cookie: this.cookie } : {}),
            ...(body !== undefined
              ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }
              : {}),
            ...extra,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const set = res.headers['set-cookie'];
            for (const c of set ?? []) {
              const pair = c.split(';')[0];
              this.cookie = /Max-Age=0/i.test(c) ? '' : pair;
            }
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location ?? null,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  /** Posts a form of a signed-in page with the CSRF token read from `page` (a GET of any dashboard page). */
  async post(path: string, form: Record<string, string> = {}, page = '/app'): Promise<Answer> {
    const csrf = csrfOf((await this.get(page)).text);
    return this.send('POST', path, { _csrf: csrf, ...form });
  }

  signUp(email: string, password: string): Promise<Answer> {
    return this.send('POST', '/app/signup', { email, password });
  }

  signIn(email: string, password: string, next = ''): Promise<Answer> {
    return this.send('POST', '/app/login', { email, password, next });
  }
}

export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1];
}

/** The API key a page shows once. */
export function revealedKey(page: string): string | null {
  return /data-field="new-key">(rjk_live_[a-z0-9]+)</.exec(page)?.[1] ?? null;
}

/** The message shown beside a field. */
export function fieldError(page: string, field: string): string | null {
  return new RegExp(`data-error-for="${field}">([^<]*)<`).exec(page)?.[1] ?? null;
}

/** The value an input was filled with. */
export function valueOf(page: string, field: string): string | null {
  return new RegExp(`name="${field}" type="[a-z]+" value="([^"]*)"`).exec(page)?.[1] ?? null;
}

/**
 * Moves the sandbox clock to just past the start of a minute (admin token), so a test counting into a
 * per-minute window of the dashboard has the whole minute before the window turns.
 */
export async function startOfMinute(baseUrl: string, adminToken: string): Promise<void> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const clock = (await (await fetch(`${baseUrl}/sandbox/v1/clock`, { headers: auth })).json()) as { now: string };
  const into = Date.parse(clock.now) % 60_000;
  const seconds = (60_000 - into + 200) / 1000;
  const res = await fetch(`${baseUrl}/sandbox/v1/clock/advance`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ seconds }),
  });
  if (!res.ok) throw new Error(`clock advance failed: ${res.status} ${await res.text()}`);
}
