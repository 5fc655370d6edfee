// Control API: the hire outbox (MCP work). (Skeleton.)

import { Hono } from 'hono';
import type { AppEnv } from '../../http/types.js';

export function outboxRoutes() {
  return new Hono<AppEnv>();
}
