// REST adapter for /api/screening/v1. (Skeleton; filled in by the screening work.)

import { Hono } from 'hono';
import type { AppEnv } from './types.js';

export function screeningRoutes() {
  return new Hono<AppEnv>();
}
