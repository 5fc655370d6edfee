// Hostile requests against a sandbox in a child process: for each class, the worst round trip of a
// concurrent ping (and its ratio to the ping's own baseline) and the sandbox's peak RSS while it ran.

import { figure, notMeasured, below, type Figure } from '../lib/figures.js';
import {
  chunkedUpload,
  largeHead,
  manyNames,
  MCP_HEADERS,
  post,
  sampleGroupRss,
  stallDuring,
  submitWith,
  toolCall,
} from '../lib/hostile.js';
import { waitFor } from '../lib/children.js';
import { createBenchTenant, startSandboxChild, type SandboxChild } from '../lib/sandbox.js';
import type { Section } from '../lib/section.js';

const MB = 1024 * 1024;
const STALL_TARGET = below(100, '< 100 ms (issue 13)');
const RSS_TARGET = below(500, '< 500 MB (issue 13)');

interface HostileClass {
  id: string;
  label: string;
  fire(sb: SandboxChild, t: { apiKey: string }, jobId: string): Promise<unknown>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let seq = 0;

/** Submits, then waits until the request is scored: the scorer's stall came after the 201. */
async function submitAndScore(sb: SandboxChild, apiKey: string, body: string): Promise<void> {
  const res = await post(`${sb.baseUrl}/api/screening/v1/screen`, body, bearer(apiKey));
  if (res.status !== 201) throw new Error(`submit answered ${res.status}: ${res.text.slice(0, 200)}`);
  const id = res.json.requestId as string;
  await waitFor(
    'the hostile request to be scored',
    async () =>
      (await sb.admin('GET', `/sandbox/v1/reviews/${id}`, undefined, 120_000)).json?.state === 'pending_review'
        ? true
        : undefined,
    {
      timeoutMs: 180_000,
      intervalMs: 50,
    },
  );
}

const CLASSES: HostileClass[] = [
  {
    id: 'mcp-unknown-args',
    label: 'keyless MCP call with 32,000 unknown argument names',
    fire: (sb) => post(sb.anonMcpUrl, toolCall('search_jobs', manyNames(32_000)), MCP_HEADERS),
  },
  {
    id: 'musthaves-numbers',
    label: 'submit with 40,000 numbers as mustHaves',
    fire: (sb, t) =>
      post(
        `${sb.baseUrl}/api/screening/v1/screen`,
        submitWith(`hostile-${++seq}`, { mustHaves: Array.from({ length: 40_000 }, (_, i) => i) }),
        bearer(t.apiKey),
      ),
  },
  {
    id: 'unknown-props',
    label: 'submit and apply with 20,000 unknown properties each',
    fire: async (sb, t, jobId) => {
      await post(
        `${sb.baseUrl}/api/screening/v1/screen`,
        submitWith(`hostile-${++seq}`, manyNames(20_000)),
        bearer(t.apiKey),
      );
      const apply = {
        candidate_name: 'Dewi',
        candidate_email: 'dewi@example.com',
        message: 'x'.repeat(100),
        ...manyNames(20_000),
      };
      await post(`${sb.baseUrl}/api/v1/jobs/${jobId}/apply`, JSON.stringify(apply), bearer(t.apiKey));
    },
  },
  {
    id: 'scorer-spaces',
    label: 'valid submit: 25 must-haves of a digit and 9,999 spaces, scored',
    fire: (sb, t) =>
      submitAndScore(
        sb,
        t.apiKey,
        submitWith(`hostile-${++seq}`, {
          mustHaves: Array.from({ length: 25 }, (_, i) => `${i % 10}${' '.repeat(9_999)}`),
        }),
      ),
  },
  {
    id: 'uploads',
    label: 'four parallel 200 MB chunked uploads (submit, apply, control API, MCP)',
    fire: (sb, t, jobId) =>
      Promise.all([
        chunkedUpload(`${sb.baseUrl}/api/screening/v1/screen`, bearer(t.apiKey), 200 * MB),
        chunkedUpload(`${sb.baseUrl}/api/v1/jobs/${jobId}/apply`, bearer(t.apiKey), 200 * MB),
        chunkedUpload(`${sb.baseUrl}/sandbox/v1/tenants`, bearer(sb.adminToken), 200 * MB),
        chunkedUpload(sb.anonMcpUrl, MCP_HEADERS, 200 * MB),
      ]),
  },
  {
    id: 'heads',
    label: 'search with q and location of 10,000 characters, and a 300 KB head',
    fire: async (sb, t) => {
      const q = encodeURIComponent('é'.repeat(10_000));
      await fetch(`${sb.baseUrl}/api/v1/jobs?q=${q}&location=${q}`, { headers: bearer(t.apiKey) }).then((r) =>
        r.arrayBuffer(),
      );
      await largeHead(`${sb.baseUrl}/api/v1/jobs`, 300_000);
    },
  },
];

export const hostileSection: Section = {
  id: 'hostile',
  title: 'Hostile requests: stall of a concurrent ping and peak RSS',
  budgetS: () => 420,
  async run(ctx) {
    ctx.log('starting the sandbox');
    const sb = await startSandboxChild(ctx.group);
    const tenant = await createBenchTenant(sb, { planTier: 'pro', name: 'bench hostile' });
    const jobId = (
      await fetch(`${sb.baseUrl}/api/v1/jobs?limit=1`, { headers: bearer(tenant.apiKey) }).then((r) => r.json())
    ).jobs[0].id as string;
    const rss = sampleGroupRss(sb.child.proc.pid!);
    let peakOfClasses = 0;
    const figures: Figure[] = [];
    const data: Record<string, unknown> = {};
    for (const k of CLASSES) {
      ctx.log(`  ${k.id}`);
      const sample = sampleGroupRss(sb.child.proc.pid!);
      try {
        const { stall } = await stallDuring(`${sb.baseUrl}/llms.txt`, () => k.fire(sb, tenant, jobId));
        const peakMb = sample.stop() / MB;
        peakOfClasses = Math.max(peakOfClasses, peakMb);
        data[k.id] = { ...stall, peakRssMb: peakMb };
        figures.push(
          figure(
            `hostile.${k.id}.stall`,
            `${k.label}: worst ping`,
            stall.worstMs,
            'ms',
            STALL_TARGET,
            `${Math.round(stall.ratio)}× the ping's baseline of ${stall.baselineMs.toFixed(1)} ms`,
          ),
          figure(`hostile.${k.id}.rss`, `${k.label}: peak RSS`, peakMb, 'MB', RSS_TARGET),
        );
      } catch (err) {
        sample.stop();
        figures.push(
          notMeasured(
            `hostile.${k.id}.stall`,
            `${k.label}: worst ping`,
            'ms',
            err instanceof Error ? err.message : String(err),
            STALL_TARGET,
          ),
        );
      }
    }
    // the two samplers tick at different moments: the peak is the larger of what either saw
    figures.push(
      figure(
        'hostile.rss.peak',
        'Peak RSS of the sandbox through every class',
        Math.max(rss.stop() / MB, peakOfClasses),
        'MB',
        RSS_TARGET,
      ),
    );
    return {
      figures,
      data,
      notes: [
        'The sandbox runs in its own process; the benchmark pings `GET /llms.txt` back to back (5 ms apart) while each hostile request runs, after 30 pings for a baseline (the median). The worst ping is the stall other clients saw.',
        'RSS is read from /proc for the sandbox process (the largest in its process group, which also holds the tsx wrapper), every 50 ms.',
      ],
    };
  },
};
