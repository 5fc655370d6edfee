// Control API: webhook deliveries and redelivery (screening work). (Skeleton.)

import { Hono } from 'hono';
import type { AppEnv } from '../../http/types.js';

export function webhooksRoutes() {
  return new Hono<AppEnv>();
}
