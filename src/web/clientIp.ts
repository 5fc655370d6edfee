// The one notion of "client IP" behind every per-IP bucket (the REST API's window for calls without a
// usable key, the keyed MCP server's, and the anonymous MCP server's day): the TCP peer address, an
// IPv4-mapped IPv6 address read as IPv4 so one client never fills two buckets.

import type { Context } from 'hono';

export function clientIp(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return peerIp(env?.incoming?.socket?.remoteAddress);
}

/** The client IP for a TCP peer address (undefined when the socket is gone). */
export function peerIp(addr: string | undefined): string {
  return addr ? addr.replace(/^::ffff:/, '') : 'unknown';
}
