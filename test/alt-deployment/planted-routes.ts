// Planted routing violations (violations-jobs.ts): documented paths moved or missing. The main server routes
// by the path this returns; a hidden path matches no route and answers 404.
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
