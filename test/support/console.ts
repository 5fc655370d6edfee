// A cookie-keeping form client for the console: what a browser sends, without a browser.

import { expect } from 'vitest';
import { ADMIN_TOKEN } from './sandbox.js';

/** A cookie-keeping form client for the console; `base` may be changed (another instance of one sandbox). */
export function browser(baseUrl: string) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const request = async (
    method: string,
    path: string,
    form?: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ) => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form ?? {})) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(jarred.base + path, {
      method,
      redirect: 'manual',
      headers: {
        ...(jar.size ? { cookie: cookie() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: form ? body.toString() : undefined,
    });
    const setCookie = res.headers.get('set-cookie');
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      if (i < 0) continue;
      if (i === pair.length - 1 || /max-age=0(;|$)/i.test(line)) jar.delete(pair.slice(0, i));
      else jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text(), setCookie };
  };
  const jarred = {
    base: baseUrl,
    request,
    /** The Cookie header this client sends (setting it replaces every cookie it holds). */
    get cookie() {
      return cookie();
    },
    set cookie(v: string) {
      jar.clear();
      for (const pair of v.split(';')) {
        const i = pair.indexOf('=');
        if (i > 0) jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
      }
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
  return jarred;
}
