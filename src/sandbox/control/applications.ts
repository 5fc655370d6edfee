// Control API: jobs applications curation queue (jobs work). (Skeleton.)

import { Hono } from 'hono';
import type { AppEnv } from '../../http/types.js';

export function applicationsRoutes() {
  return new Hono<AppEnv>();
}
