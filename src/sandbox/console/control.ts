// The console is a view over the control API: every read and action goes in-process through the
// same /sandbox/v1 routes, error handler and validation an HTTP caller gets, with the admin token.

import { Hono } from 'hono';
import type { Core } from '../../domain/core.js';
import { DomainError, notFound } from '../../errors/errors.js';
import { toErrorResponse } from '../../web/envelope.js';
import type { AppEnv } from '../../web/env.js';
import { controlRoutes } from '../control/index.js';
import type { Wire } from './types.js';

export type ControlResult<T = Wire> =
  { ok: true; status: number; data: T } | { ok: false; status: number; code: string; message: string; field?: string };

export interface ControlClient {
  get<T = Wire>(path: string, query?: Record<string, string | undefined>): Promise<ControlResult<T>>;
  send<T = Wire>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<ControlResult<T>>;
}

const FIELD_HEADER = 'x-error-field';
const apps = new WeakMap<Core, Hono<AppEnv>>();

/** How a console call reaches the control app: in-process by default; the composition root may put a recorder in between. */
export type ControlTransport = (app: Hono<AppEnv>, req: Request) => Promise<Response>;
const transports = new WeakMap<Core, ControlTransport>();

/** Routes every console call of `core` through `via` (a shared sandbox records the ones that change state). */
export function routeControlCalls(core: Core, via: ControlTransport): void {
  transports.set(core, via);
}

export function controlApp(core: Core): Hono<AppEnv> {
  let app = apps.get(core);
  if (!app) {
    app = new Hono<AppEnv>();
    app.onError((err, c) => {
      // the field an invalid_request is about, so a console form can show the message beside it
      if (err instanceof DomainError && err.details.field) c.header(FIELD_HEADER, err.details.field);
      return toErrorResponse(c, err);
    });
    app.notFound((c) => toErrorResponse(c, notFound(`the control API has no route for ${c.req.method} ${c.req.path}`)));
    app.use('*', async (c, next) => {
      c.set('core', core);
      await next();
    });
    app.route('/sandbox/v1', controlRoutes());
    apps.set(core, app);
  }
  return app;
}

async function toResult(res: Response): Promise<ControlResult> {
  const text = await res.text();
  let data: Wire;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (res.ok) return { ok: true, status: res.status, data };
  const err = data?.error;
  const field = res.headers.get(FIELD_HEADER);
  return {
    ok: false,
    status: res.status,
    ...(field ? { field } : {}),
    code: typeof err?.code === 'string' ? err.code : 'internal',
    message: typeof err?.message === 'string' ? err.message : `the control API answered ${res.status}`,
  };
}

export function controlClient(core: Core): ControlClient {
  const app = controlApp(core);
  const auth = { authorization: `Bearer ${core.config.adminToken}` };
  const via = transports.get(core);
  const call = async (path: string, init: RequestInit) => {
    const req = new Request(new URL(path, 'http://localhost'), init);
    return via ? via(app, req) : app.fetch(req);
  };
  return {
    async get(path, query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') qs.set(k, v);
      const q = qs.toString();
      return toResult(await call(`/sandbox/v1${path}${q ? `?${q}` : ''}`, { headers: auth }));
    },
    async send(method, path, body) {
      const init: RequestInit = { method, headers: { ...auth } };
      if (body !== undefined) {
        init.headers = { ...auth, 'content-type': 'application/json' };
        init.body = JSON.stringify(body);
      }
      return toResult(await call(`/sandbox/v1${path}`, init));
    },
  };
}
