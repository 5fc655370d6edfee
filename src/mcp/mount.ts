// Mounts the keyed MCP server (/api/mcp) and the discovery documents on the main app, and builds the
// anonymous server's app. (Skeleton; filled in by the MCP work.)

import { Hono } from 'hono';
import type { Core } from '../domain/core.js';
import type { AppEnv } from '../http/types.js';

export function mountKeyedMcp(_app: Hono<AppEnv>): void {}

export function createAnonApp(_core: Core): Hono {
  return new Hono();
}
