// Self-check mode (config.selfCheck, on in tests): every /api/* JSON response is validated against the
// contract (status, body, documented headers). A response that breaks it is replaced by a 500 `internal`
// envelope listing the problems, and logged, so contract drift fails loudly where it happens.

import type { MiddlewareHandler } from 'hono';
import type { Contracts } from '../contract/index.js';
import type { AppEnv } from './env.js';

// Chaos rules (src/domain/faults.ts) deliberately answer statuses an endpoint does not document.
const CHAOS_STATUSES = new Set([429, 500, 503]);
const CHAOS_MARK = 'injected fault ';

/** Problems of one response, or [] when it conforms (or is not the contract's business). */
export function responseProblems(
  contracts: Contracts,
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Headers,
): string[] {
  const hit = contracts.match(method, path);
  if (!hit) return [];
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  if (CHAOS_STATUSES.has(status) && typeof message === 'string' && message.startsWith(CHAOS_MARK)) {
    return contracts.validate(`${hit.op.api}:ErrorEnvelope`, body).map((p) => `body: ${p}`);
  }
  return hit.op.checkResponse(status, body, headers);
}

export const selfCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const path = c.req.path;
  if (!checksAnswersOf(c.req.method, path)) return;
  const res = c.res;
  if (!/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return;
  const contracts = c.var.core.contracts;
  if (!contracts.match(c.req.method, path)) return;
  const message = selfCheckFailure(contracts, c.req.method, path, res.status, await res.clone().text(), res.headers);
  if (message === null) return;
  // Clearing first stops Hono from copying the broken response's headers onto the replacement.
  c.res = undefined;
  c.res = new Response(failureBody(message), { status: 500, headers: { 'content-type': FAILURE_TYPE } });
};

/** Whether self-check mode looks at the answers of this call at all (MCP answers are the SDK's). */
export const checksAnswersOf = (method: string, path: string) =>
  method !== 'HEAD' && path !== '/api/mcp' && !path.startsWith('/api/mcp/');

/** The replacement answer's content type and body, for an answer that broke the contract. */
export const FAILURE_TYPE = 'application/json; charset=UTF-8';
export const failureBody = (message: string) => JSON.stringify({ error: { code: 'internal', message } });

/**
 * The message naming how a JSON answer breaks its operation's contract (logged with the body), or null
 * when it conforms or no documented operation matches.
 */
export function selfCheckFailure(
  contracts: Contracts,
  method: string,
  path: string,
  status: number,
  text: string,
  headers: Headers,
): string | null {
  const hit = contracts.match(method, path);
  if (!hit) return null;
  let problems: string[];
  try {
    const body = text === '' ? undefined : JSON.parse(text);
    problems = responseProblems(contracts, method, path, status, body, headers);
  } catch (e) {
    problems = [`body is not valid JSON: ${(e as Error).message}`];
  }
  if (problems.length === 0) return null;
  const message = `self-check: ${method} ${path} answered ${status}, which breaks the contract of ${hit.op.operationId}: ${problems.join('; ')}`;
  console.error(`[self-check] ${message}\n[self-check] body: ${text.slice(0, 2000)}`);
  return message;
}
