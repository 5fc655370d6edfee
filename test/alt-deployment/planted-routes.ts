// Planted routing violations (violations-jobs.ts): documented paths moved or missing. The main server routes
// by the path this returns; a hidden path matches no route and answers 404. Also two planted answers in front
// of the rule code (so the rule files, which `npm run mutants` mutates, stay as they are): a served description
// that narrows a documented parameter, an apply refused at the documented longest message, a screening key
// without its scope answered with a status the screening endpoints do not document, and a search page that
// starts between two multiples of its limit saying hasMore false.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { bearer, fail, readRaw, sendError } from './http.js';
import { SCREENING_PREFIX } from './screening.js';
import type { TenantStore } from './tenants.js';
import type { Switches } from './violations.js';

const hidden = (p: string) => `/not-served${p}`;

export function routedPath(url: URL, v: Switches): string {
  const p = url.pathname;
  if (v.on('rest-without-v1')) {
    if (p === '/api/v1' || p.startsWith('/api/v1/')) return hidden(p);
    if (/^\/api\/(jobs|me|market)(\/|$)/.test(p)) url.pathname = `/api/v1${p.slice('/api'.length)}`;
  }
  if (v.on('mcp-wrong-path')) {
    if (p === '/api/mcp') return hidden(p);
    if (p === '/api/mcp/v1') url.pathname = '/api/mcp';
  }
  if (
    (v.on('no-well-known') && p === '/.well-known/mcp.json') ||
    (v.on('no-llms-txt') && p === '/llms.txt') ||
    (v.on('no-openapi') && p === '/api/openapi.json')
  )
    return hidden(p);
  return url.pathname;
}

/** `openapi-enum-narrowed`: the served description lists `remote_type` of the search without `worldwide`. */
export function plantedDescription<T>(doc: T, v: Switches): T {
  if (!v.on('openapi-enum-narrowed')) return doc;
  const copy = structuredClone(doc) as { paths?: Record<string, { get?: { parameters?: unknown[] } }> };
  for (const p of (copy.paths?.['/api/v1/jobs']?.get?.parameters ?? []) as {
    name: string;
    schema: { enum: string[] };
  }[])
    if (p.name === 'remote_type') p.schema.enum = p.schema.enum.filter((x) => x !== 'worldwide');
  return copy as T;
}

/**
 * `message-3000-refused`: an apply whose message is exactly 3000 characters long is refused with 400 before the
 * jobs API sees it. Resolves with the request to hand on (its body intact), or undefined when it was answered.
 */
export async function plantedApply(
  req: IncomingMessage,
  res: ServerResponse,
  p: string,
  v: Switches,
): Promise<IncomingMessage | undefined> {
  if (!v.on('message-3000-refused') || req.method !== 'POST' || !/^\/api\/v1\/jobs\/[^/]+\/apply$/.test(p)) return req;
  const raw = await readRaw(req);
  let message: unknown;
  try {
    message = (JSON.parse(raw) as { message?: unknown } | null)?.message;
  } catch {
    /* not JSON: the jobs API refuses it */
  }
  if (typeof message === 'string' && message.length === 3000) {
    sendError(res, fail(400, 'message: must be 80 to 2999 characters; got 3000'));
    return undefined;
  }
  const copy = Object.assign(Readable.from([Buffer.from(raw)]), {
    headers: req.headers,
    method: req.method,
    url: req.url,
    socket: req.socket,
  });
  return copy as unknown as IncomingMessage;
}

/** `scr-no-scope-404`: a key without the screening scope is answered 404 on the screening endpoints. True when answered. */
export function plantedScopeAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  p: string,
  tenants: TenantStore,
  v: Switches,
): boolean {
  if (!v.on('scr-no-scope-404') || !p.startsWith(`${SCREENING_PREFIX}/`)) return false;
  const key = bearer(req);
  const t = key === undefined ? undefined : tenants.byApiKey(key);
  if (!t || t.scopes.has('screening')) return false;
  sendError(res, fail(404, 'nothing here for this key'));
  return true;
}

/** `has-more-unaligned`: a search page whose offset is not a multiple of its limit says hasMore false. */
export function plantedSearchAnswer(res: ServerResponse, url: URL, p: string, v: Switches): ServerResponse {
  if (!v.on('has-more-unaligned') || p !== '/api/v1/jobs') return res;
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  if (!limit || offset % limit === 0) return res;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    try {
      const b = JSON.parse(String(chunk)) as { hasMore?: unknown } | null;
      if (typeof b?.hasMore === 'boolean') return end(JSON.stringify({ ...b, hasMore: false }));
    } catch {
      /* not a search body: sent as it is */
    }
    return end(chunk);
  }) as ServerResponse['end'];
  return res;
}
