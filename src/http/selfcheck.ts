// Test-mode self-check: validates every API response against the contract. (Skeleton; implemented by
// the contracts work.)

import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './types.js';

export const selfCheck: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next();
};
