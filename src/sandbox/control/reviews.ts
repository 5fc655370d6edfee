// Control API: review queue and decisions (screening work). (Skeleton.)

import { Hono } from 'hono';
import type { AppEnv } from '../../http/types.js';

export function reviewsRoutes() {
  return new Hono<AppEnv>();
}
