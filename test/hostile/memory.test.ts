// Hostile input, part 4: memory. A sandbox in a child process (its own heap, measured from /proc) takes
// four parallel 200 MB chunked uploads, each refused at 256 KiB, and the budget's worst requests; its
// resident set stays under 500 MB throughout (issue 13 item 3, D-80, D-81).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChildGroup } from '../../bench/lib/children.js';
import {
  chunkedUpload,
  manyNames,
  MCP_HEADERS,
  post,
  sampleGroupRss,
  submitWith,
  toolCall,
} from '../../bench/lib/hostile.js';
import { createBenchTenant, startSandboxChild, type SandboxChild } from '../../bench/lib/sandbox.js';

const group = new ChildGroup();
let sb: SandboxChild;
const MB = 1024 * 1024;

beforeAll(async () => {
  sb = await startSandboxChild(group, { args: ['--corpus', '200'] });
}, 120_000);
afterAll(() => group.stopAll());

describe('memory under hostile input', () => {
  it('stays under 500 MB RSS through four parallel 200 MB uploads and the budget cases', async () => {
    const t = await createBenchTenant(sb, { planTier: 'pro' });
    const jobs = await fetch(`${sb.baseUrl}/api/v1/jobs?limit=1`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    }).then((r) => r.json());
    const auth = { authorization: `Bearer ${t.apiKey}` };
    const rss = sampleGroupRss(sb.child.proc.pid!);
    const before = rss.current();
    try {
      const uploads = await Promise.all([
        chunkedUpload(`${sb.baseUrl}/api/screening/v1/screen`, auth, 200 * MB),
        chunkedUpload(`${sb.baseUrl}/api/v1/jobs/${jobs.jobs[0].id}/apply`, auth, 200 * MB),
        chunkedUpload(`${sb.baseUrl}/sandbox/v1/tenants`, { authorization: `Bearer ${sb.adminToken}` }, 200 * MB),
        chunkedUpload(sb.anonMcpUrl, MCP_HEADERS, 200 * MB),
      ]);
      expect(
        uploads.map((u) => u.status),
        JSON.stringify(uploads),
      ).toEqual([413, 413, 413, 413]);
      const budget = await Promise.all([
        post(sb.anonMcpUrl, toolCall('search_jobs', manyNames(32_000)), MCP_HEADERS),
        post(
          `${sb.baseUrl}/api/screening/v1/screen`,
          submitWith('many', { mustHaves: Array.from({ length: 40_000 }, (_, i) => i) }),
          auth,
        ),
        post(`${sb.baseUrl}/api/screening/v1/screen`, submitWith('unknown', manyNames(20_000)), auth),
      ]);
      expect(budget.map((r) => r.status)).toEqual([200, 400, 400]);
    } finally {
      const peak = rss.stop();
      expect(before).toBeGreaterThan(0);
      expect(peak / MB, `peak RSS ${Math.round(peak / MB)} MB (at start ${Math.round(before / MB)} MB)`).toBeLessThan(
        500,
      );
    }
  }, 300_000);
});
