// A cookie-keeping form client for the console: what a browser sends, without a browser.

import { expect } from 'vitest';
import { ADMIN_TOKEN } from './sandbox.js';

/** A cookie-keeping form client for the console. */
export function browser(baseUrl: string) {
  let cookie = '';
  const request = async (
    method: string,
    path: string,
    form?: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ) => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form ?? {})) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(baseUrl + path, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: form ? body.toString() : undefined,
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const [pair] = setCookie.split(';');
      cookie = pair.endsWith('=') ? '' : pair;
    }
    return { status: res.status, headers: res.headers, text: await res.text(), setCookie };
  };
  return {
    request,
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
    async csrf(path = '/console/tenants') {
      const page = await request('GET', path);
      const m = /name="_csrf" value="([^"]+)"/.exec(page.text);
      if (!m) throw new Error(`no CSRF field on ${path}: ${page.status}`);
      return m[1];
    },
    async login() {
      const res = await request('POST', '/console/login', { token: ADMIN_TOKEN, next: '/console/tenants' });
      expect(res.status).toBe(303);
      return res;
    },
  };
}
