// The API routes stay on the RegExpRouter: a single route pattern it cannot compile would silently send
// every API call through the TrieRouter at several times the cost (seen once with an admin route).

import { describe, expect, it } from 'vitest';
import { AdminApartRouter } from '../src/app.js';
import { useSandbox } from './support/sandbox.js';

const sb = useSandbox({ seedDemo: false });

describe('routing', () => {
  it('matches API paths with the RegExpRouter, whatever the admin paths register', async () => {
    const res = await fetch(`${sb.get().baseUrl}/api/v1/jobs/none`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    const { createApp } = await import('../src/app.js');
    const app = createApp(sb.get().core);
    await app.request('/api/v1/jobs/none');
    const router = app.router as unknown as AdminApartRouter<unknown>;
    expect(router).toBeInstanceOf(AdminApartRouter);
    expect(router.apiRouterName).toBe('RegExpRouter');
  });
});
