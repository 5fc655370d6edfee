// Webhook delivery against a local receiver: how fast the sandbox dispatches a backlog of signed
// deliveries, and how long a review decision (control API) takes to arrive as a signed
// `screening.review_decided` delivery.

import { waitFor } from '../lib/children.js';
import { figure, fmt, notMeasured, type Figure } from '../lib/figures.js';
import { clientFor, expectStatus, pool } from '../lib/http.js';
import { WebhookReceiver, type Arrival } from '../lib/receiver.js';
import { createBenchTenant, startSandboxChild, submitBody, type SandboxChild } from '../lib/sandbox.js';
import type { Section, SectionContext } from '../lib/section.js';
import { summarize } from '../lib/stats.js';

const SECRET_LATENCY = 'whsec_bench_latency_0123456789';
const SECRET_BURST = 'whsec_bench_burst_0123456789';
const PER_DELIVERY_TIMEOUT_MS = 10_000;

async function submitMany(sb: SandboxChild, apiKey: string, n: number, concurrency: number): Promise<string[]> {
  const api = clientFor(sb.baseUrl, apiKey);
  return pool(
    Array.from({ length: n }),
    concurrency,
    async () =>
      expectStatus(await api('POST', '/api/screening/v1/screen', submitBody('webhook')), 201, 'submit').json
        .requestId as string,
  );
}

/** Every item of a paged control-API listing (keyset pages of at most 500, D-103). */
async function listAll(sb: SandboxChild, path: string, field: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const res = await sb.admin(
      'GET',
      `${path}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      undefined,
      30_000,
    );
    items.push(...((res.json?.[field] as unknown[] | undefined) ?? []));
    cursor = (res.json?.nextCursor as string | null | undefined) ?? null;
  } while (cursor);
  return items;
}

function arrivalOf(rx: WebhookReceiver, match: (a: Arrival) => boolean, timeoutMs: number): Promise<Arrival> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching delivery within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = rx.onArrival((a) => {
      if (!match(a)) return;
      clearTimeout(timer);
      off();
      resolve(a);
    });
  });
}

async function decisionLatency(
  ctx: SectionContext,
  sb: SandboxChild,
  rx: WebhookReceiver,
): Promise<{ figures: Figure[]; data: unknown }> {
  const n = ctx.opts.webhookDecisions;
  const tenant = await createBenchTenant(sb, {
    name: 'bench webhooks latency',
    webhookUrl: rx.route('/latency', SECRET_LATENCY),
    webhookSecret: SECRET_LATENCY,
  });
  const ids = await submitMany(sb, tenant.apiKey, n, 10);
  const pending = await waitFor(
    `${n} requests pending review`,
    async () => {
      const count = (
        await listAll(sb, `/sandbox/v1/reviews?state=pending_review&tenantId=${tenant.tenantId}`, 'reviews')
      ).length;
      return count >= n ? count : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, child: sb.child },
  );
  // let the scored deliveries of the set-up drain so they do not share the timed window
  await waitFor(
    `${n} scored deliveries`,
    () =>
      Promise.resolve(
        rx.arrivals.filter((a) => a.path === '/latency' && a.event === 'screening.scored').length >= n
          ? true
          : undefined,
      ),
    {
      timeoutMs: 60_000,
      child: sb.child,
    },
  );

  const latencies: number[] = [];
  let badSignatures = 0;
  const deadline = performance.now() + 120_000;
  for (const id of ids) {
    if (performance.now() > deadline) break;
    const arrived = arrivalOf(
      rx,
      (a) => a.requestId === id && a.event === 'screening.review_decided',
      PER_DELIVERY_TIMEOUT_MS,
    );
    const t0 = performance.now();
    const res = await sb.admin('POST', `/sandbox/v1/reviews/${id}/decision`, {
      decision: 'approved',
      reviewerId: 'bench-reviewer',
    });
    if (res.status !== 200) {
      arrived.catch(() => undefined);
      throw new Error(`decision on ${id}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    }
    const a = await arrived;
    if (!a.signatureOk) badSignatures++;
    latencies.push(a.at - t0);
  }
  const s = summarize(latencies);
  const note = `${latencies.length} decisions one after another (after ${pending} requests reached pending_review); ${badSignatures ? `${badSignatures} signatures did NOT verify` : 'every signature verified'}`;
  const figures = [
    figure('webhooks.decision.p50', 'Review decision to signed delivery received, p50', s.p50, 'ms', undefined, note),
    figure('webhooks.decision.p99', 'Review decision to signed delivery received, p99', s.p99, 'ms'),
  ];
  return { figures, data: { decisions: latencies.length, badSignatures, summary: s } };
}

async function deliveryRate(
  ctx: SectionContext,
  sb: SandboxChild,
  rx: WebhookReceiver,
): Promise<{ figures: Figure[]; data: unknown }> {
  const n = ctx.opts.webhookBurst;
  const tenant = await createBenchTenant(sb, {
    name: 'bench webhooks burst',
    webhookUrl: rx.route('/burst', SECRET_BURST),
    webhookSecret: SECRET_BURST,
  });
  const isBurst = (a: Arrival) => a.path === '/burst' && a.event === 'screening.scored';
  // the first attempt of every delivery fails; the receiver recovers once all have failed, so the
  // retries that a clock advance releases together form the backlog being timed
  rx.failing.add('/burst');
  let failures = 0;
  const allFailed = new Promise<void>((resolve) => {
    const off = rx.onArrival((a) => {
      if (isBurst(a) && a.answered === 503 && ++failures >= n) {
        rx.failing.delete('/burst');
        off();
        resolve();
      }
    });
  });
  await submitMany(sb, tenant.apiKey, n, ctx.opts.connections);
  await Promise.race([
    allFailed,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`only ${failures} of ${n} first attempts arrived within 60 s`)), 60_000),
    ),
  ]);
  rx.failing.delete('/burst');
  await waitFor(
    'every failed attempt to be recorded',
    async () => {
      const list = (await listAll(sb, `/sandbox/v1/webhooks/deliveries?tenantId=${tenant.tenantId}`, 'deliveries')) as {
        status: string;
      }[];
      return list.length >= n && list.every((d) => d.status !== 'pending') ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, child: sb.child },
  );

  const before = rx.arrivals.filter((a) => isBurst(a) && a.answered === 204).length;
  const released: Arrival[] = [];
  const done = new Promise<void>((resolve) => {
    const off = rx.onArrival((a) => {
      if (isBurst(a) && a.answered === 204) {
        released.push(a);
        if (before + released.length >= n) {
          off();
          resolve();
        }
      }
    });
  });
  const t0 = performance.now();
  // far enough to pass the first retry (5 s) and, for any attempt that failed twice, the second (300 s)
  expectStatus(await sb.admin('POST', '/sandbox/v1/clock/advance', { seconds: 400 }), 200, 'advance the sandbox clock');
  await Promise.race([done, new Promise((r) => setTimeout(r, 60_000))]);
  if (released.length === 0) throw new Error('no delivery arrived after the clock advance released the retries');
  const windowS = (released[released.length - 1].at - t0) / 1000;
  const bad = released.filter((a) => !a.signatureOk).length;
  const rate = released.length / windowS;
  return {
    figures: [
      figure(
        'webhooks.rate',
        'Signed deliveries per second to a local receiver',
        rate,
        '/s',
        undefined,
        `${released.length} retries released at once by a clock advance, last one received after ${fmt(windowS * 1000, 0)} ms; ${bad ? `${bad} signatures did NOT verify` : 'every signature verified'}${before ? `; ${before} retried on real time before the advance` : ''}`,
      ),
    ],
    data: { released: released.length, windowS, badSignatures: bad, retriedBeforeAdvance: before, expected: n },
  };
}

export const webhooksSection: Section = {
  id: 'webhooks',
  title: 'Webhook delivery',
  budgetS: () => 420,
  async run(ctx) {
    const rx = new WebhookReceiver();
    await rx.start();
    try {
      ctx.log('starting the sandbox');
      const sb = await startSandboxChild(ctx.group);
      const figures: Figure[] = [];
      const data: Record<string, unknown> = {};
      for (const [name, fn, ids] of [
        ['latency', decisionLatency, ['webhooks.decision.p50', 'Review decision to signed delivery received, p50']],
        ['rate', deliveryRate, ['webhooks.rate', 'Signed deliveries per second to a local receiver']],
      ] as const) {
        ctx.log(`  ${name}`);
        try {
          const out = await fn(ctx, sb, rx);
          figures.push(...out.figures);
          data[name] = out.data;
        } catch (err) {
          figures.push(
            notMeasured(
              ids[0],
              ids[1],
              name === 'rate' ? '/s' : 'ms',
              err instanceof Error ? err.message : String(err),
            ),
          );
        }
      }
      return {
        figures,
        data,
        notes: [
          'The receiver is a node:http server in the benchmark process on 127.0.0.1; it verifies `X-Screening-Signature` (HMAC-SHA256 of the raw body with the tenant secret) on every delivery and answers 204.',
          `Decision latency: ${ctx.opts.webhookDecisions} requests are submitted and scored first; then each is approved through \`POST /sandbox/v1/reviews/{id}/decision\`, one at a time, and the time runs from sending the decision to the signed \`screening.review_decided\` delivery arriving.`,
          `Delivery rate: ${ctx.opts.webhookBurst} \`screening.scored\` deliveries whose first attempt the receiver refused (503) are all released at once by \`POST /sandbox/v1/clock/advance\`; the rate is deliveries received over the time from the advance to the last arrival.`,
          'The sandbox ran with rate limits lifted (`--no-rate-limits`).',
        ],
      };
    } finally {
      await rx.stop();
    }
  },
};
