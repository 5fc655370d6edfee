// REST adapter for /api/v1 (jobs, apply, me, market). (Skeleton; filled in by the jobs work.)

import { Hono } from 'hono';
import type { AppEnv } from './types.js';

export function jobsRoutes() {
  return new Hono<AppEnv>();
}
