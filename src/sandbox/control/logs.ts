// Control API: the request log, newest first, filtered by tenant, API and status class, and
// searched by a word that may appear in the method, path, tool, status or either body. A tenant's
// calls are its own ring of the log; unfiltered, every ring is read merged in creation order (D-143).

import { Hono } from 'hono';
import type { CallEntry } from '../../domain/callLog.js';
import { invalid, notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys } from './admin.js';
import { ensureVisible, tenantFor } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

export function logsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId', 'q', 'api', 'status', ...PAGE_PARAMS]);
    const { api, status } = query;
    const tenantId = tenantFor(c, query.tenantId || undefined, false);
    if (api && api !== 'rest' && api !== 'mcp') throw invalid("api must be 'rest' or 'mcp'", 'api');
    if (status && !/^[1-5]xx$/.test(status)) throw invalid('status must be a class such as 2xx, 4xx or 5xx', 'status');
    if (query.q && query.q.length > 200) throw invalid('q must be at most 200 characters', 'q');
    const q = query.q?.toLowerCase();
    const match = (e: CallEntry) =>
      (!api || e.api === api) &&
      (!status || String(e.status)[0] === status[0]) &&
      (!q ||
        `${e.method} ${e.path} ${e.tool ?? ''} ${e.status}\n${e.requestBody}\n${e.responseBody}`
          .toLowerCase()
          .includes(q));
    const { entries, base } = c.var.core.callLog.window(tenantId);
    const paging = readPageQuery(query, 'desc');
    // merged rings roll off in the middle of the merged list: find the cursor's entry where it now sits
    const after = paging.after;
    if (tenantId === undefined && after && entries[after.p]?.id !== after.id) {
      const at = entries.findIndex((e) => e.id === after.id);
      if (at >= 0) paging.after = { p: at, id: after.id };
    }
    const page = pageOf(entries, paging, (e) => e.id, match, base);
    return c.json({ entries: page.items, nextCursor: page.nextCursor });
  });

  r.get('/:id', (c) => {
    const absent = () => notFound(`no request log entry ${c.req.param('id')} (only the latest entries are kept)`);
    const e = c.var.core.callLog.get(c.req.param('id'));
    if (!e) throw absent();
    ensureVisible(c, e.tenantId ?? undefined, absent);
    return c.json(e);
  });

  return r;
}
