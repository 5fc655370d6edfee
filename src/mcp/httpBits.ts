// Small HTTP pieces both MCP endpoints share: the JSON-RPC shaped 405 for methods a stateless server
// does not serve, and the DNS-rebinding guard (D-45).

import type { Context } from 'hono';

/** 405 with a JSON-RPC error body, as the transport itself answers methods it does not know. */
export function methodNotAllowed(allow: string, why: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Method not allowed: ${why}` }, id: null }),
    {
      status: 405,
      headers: { Allow: allow, 'Content-Type': 'application/json' },
    },
  );
}

export const wantsEventStream = (c: Context) => (c.req.header('accept') ?? '').includes('text/event-stream');

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function hostnameOf(hostOrUrl: string): string | null {
  try {
    return new URL(hostOrUrl.includes('://') ? hostOrUrl : `http://${hostOrUrl}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * DNS-rebinding guard (MCP transports: servers must validate Origin). A browser Origin must name this
 * sandbox or a loopback host; and while the sandbox listens on loopback, so must the Host header, so a
 * page on evil.example resolving to 127.0.0.1 cannot drive the server. `anyOrigin` (the public,
 * read-only anonymous server, D-93) skips the Origin rule and keeps the Host rule. Returns the reason to refuse.
 */
export function rebindingProblem(
  c: Context,
  config: { host: string; publicUrl: string },
  opts: { anyOrigin?: boolean } = {},
): string | null {
  const allowed = new Set(LOOPBACK);
  const publicHost = hostnameOf(config.publicUrl);
  if (publicHost) allowed.add(publicHost);
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== 'null' && !opts.anyOrigin) {
    const h = hostnameOf(origin);
    if (!h || !allowed.has(h)) return `Origin ${origin} is not allowed to call this MCP server`;
  }
  if (LOOPBACK.has(config.host.toLowerCase())) {
    const host = c.req.header('host');
    const h = host ? hostnameOf(host) : null;
    if (host !== undefined && (!h || !allowed.has(h)))
      return `Host ${host} is not this sandbox; requests must address it by a loopback name or ${publicHost}`;
  }
  return null;
}
