// Control API: where the sandbox keeps its state and what that costs (D-138): for a shared sandbox the
// log's steps and bytes since the newest snapshot, the snapshots' count, size and age, the versions this
// instance writes and reads, and what it loaded at start; for the in-memory default only its kind.

import { Hono } from 'hono';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys } from './admin.js';

export function storeRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', async (c) => {
    onlyKeys(c.req.query(), []);
    const { store } = c.var.core;
    if (store.report) return c.json(await store.report());
    return c.json({ kind: store.kind, log: null, snapshots: null, versions: null, instance: null });
  });
  return r;
}
