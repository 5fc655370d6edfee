// Mounts the keyed MCP server (/api/mcp), the discovery documents and the employer tools' sandbox
// pages on the main app, and builds the anonymous server's app (served on its own port by main.ts).

import type { Hono } from 'hono';
import { discoveryRoutes } from '../discovery.js';
import type { AppEnv } from '../web/env.js';
import { createAnonApp } from './anon.js';
import { employerPages } from './employerPages.js';
import { keyedMcpRoutes } from './keyed.js';

export function mountKeyedMcp(app: Hono<AppEnv>): void {
  app.route('/api/mcp', keyedMcpRoutes());
  app.route('/', discoveryRoutes());
  app.route('/', employerPages());
}

export { createAnonApp };
