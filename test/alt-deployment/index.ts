// Entry of the alternate deployment: an independent implementation of the two API documents, used to
// certify that the conformance harness judges an unfamiliar deployment correctly. No control plane.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildCorpus } from './corpus.js';
import { mcpJson, llmsTxt, openApi } from './discovery.js';
import { fail, sendError, sendJson, sendText } from './http.js';
import { handleJobs } from './jobs-rest.js';
import { ScreeningStore } from './ledger.js';
import { anonHandler } from './mcp-anon.js';
import type { EmployerState } from './mcp-employer.js';
import { handleKeyedMcp } from './mcp-keyed-http.js';
import { Pipeline } from './pipeline.js';
import { buildProfile, type AltProfile } from './profile.js';
import { RateLimiter } from './ratelimit.js';
import { handleScreening, SCREENING_PREFIX } from './screening.js';
import { buildTalent } from './talent.js';
import { TenantStore } from './tenants.js';
import { STARTER_CREDITS_VIOLATED } from './jobs-rest.js';
import {
  plantedApply,
  plantedDescription,
  plantedScopeAnswer,
  plantedSearchAnswer,
  routedPath,
} from './planted-routes.js';
import { Timers } from './timers.js';
import { Switches } from './violations.js';
import { PLAIN_STYLE, styleFromSeed, type ShapeStyle } from './shape-style.js';
import { ATTEMPT_TIMEOUT_MS, Deliverer, RETRY_DELAYS_MS } from './webhooks.js';

export { VIOLATIONS } from './violations.js';
export { writeProfileYaml, profileYaml, type AltProfile } from './profile.js';

export interface AltOptions {
  violations?: string[];
  webhookUrl?: string;
  reviewDelayMs?: number;
  /** 'never': the reviewer never decides (requests stay pending_review); the profile's waits stay those of the timed reviewer. */
  reviewer?: 'timed' | 'never';
  scoringDelayMs?: number;
  host?: string;
  /** How open-shape answers are named, wrapped and padded: a style, or a seed to draw one from (default: plain). */
  shapeStyle?: ShapeStyle | number;
}

export interface AltDeployment {
  baseUrl: string;
  anonMcpUrl: string;
  profile: AltProfile;
  shapeStyle: ShapeStyle;
  stop(): Promise<void>;
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export async function startAltDeployment(opts: AltOptions = {}): Promise<AltDeployment> {
  const host = opts.host ?? '127.0.0.1';
  const v = new Switches(opts.violations);
  const shape = typeof opts.shapeStyle === 'number' ? styleFromSeed(opts.shapeStyle) : (opts.shapeStyle ?? PLAIN_STYLE);
  const delays = { scoringMs: opts.scoringDelayMs ?? 300, reviewMs: opts.reviewDelayMs ?? 2000 };
  const tenants = new TenantStore(opts.webhookUrl, Date.now(), v.on('keys-test-prefix') ? 'altk_test_' : undefined);
  if (v.on('starter-credits-50'))
    for (const t of tenants.all) if (t.plan === 'starter') t.applyBalance = STARTER_CREDITS_VIOLATED;
  const ghost = { ...tenants.slot('free'), id: 'acct-unregistered', slot: 'ghost' };
  const corpus = buildCorpus();
  const limiter = new RateLimiter();
  const timers = new Timers();
  const store = new ScreeningStore(v);
  const deliverer = new Deliverer(timers, {
    wrongSecret: v.on('hook-wrong-secret'),
    compactSignature: v.on('hook-compact-signature'),
    noPrefix: v.on('signature-no-prefix'),
    ...(v.on('hook-first-tenant-secret') ? { secretOverride: tenants.all[0].webhookSecret } : {}),
  });
  const byId = new Map(tenants.all.map((t) => [t.id, t]));
  const pipeline = new Pipeline(
    store,
    timers,
    deliverer,
    (id) => byId.get(id)!,
    v,
    { ...delays, reviewMs: opts.reviewer === 'never' ? Infinity : delays.reviewMs },
    tenants.all.map((t) => t.id),
  );
  const employer: EmployerState = { pool: buildTalent(), outbox: [], listings: [] };
  let baseUrl = '';
  let anonMcpUrl = '';

  const main = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://alt.invalid');
    const p = routedPath(url, v);
    const done = (e: unknown) => {
      if (!res.headersSent) sendError(res, fail(500, 'internal error'));
      else res.destroy(e as Error);
    };
    if (plantedScopeAnswer(req, res, p, tenants, v)) return;
    if (p.startsWith(`${SCREENING_PREFIX}/`) || p === '/api/screening/usage')
      return void handleScreening(req, res, url, { tenants, store, pipeline, limiter, v }).catch(done);
    if (p === '/api/v1' || p.startsWith('/api/v1/'))
      return void plantedApply(req, res, p, v)
        .then(
          (r) =>
            r && handleJobs(r, plantedSearchAnswer(res, url, p, v), url, { tenants, corpus, limiter, v, ghost, shape }),
        )
        .catch(done);
    if (p === '/api/mcp')
      return void handleKeyedMcp(req, res, url, { tenants, corpus, limiter, employer, v, shape }).catch(done);
    if (req.method === 'GET' && p === '/.well-known/mcp.json')
      return sendJson(res, 200, mcpJson(baseUrl, anonMcpUrl, v));
    if (req.method === 'GET' && p === '/llms.txt')
      return sendText(res, 200, llmsTxt(baseUrl, anonMcpUrl), 'text/plain');
    if (req.method === 'GET' && p === '/api/openapi.json')
      return sendJson(res, 200, plantedDescription(openApi(baseUrl, v), v));
    sendError(res, fail(404, `no route ${req.method} ${p}`));
  });
  const anonHandle = anonHandler(corpus, v, () => anonMcpUrl, shape);
  const anon = createServer((req, res) => void anonHandle(req, res));

  const mainPort = await listen(main, host);
  const anonPort = await listen(anon, host);
  const origin = (port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  baseUrl = origin(mainPort);
  anonMcpUrl = `${origin(anonPort)}/mcp`;
  // the harness's receiver acknowledges every delivery: the first attempt reaches it at once, and this wait still
  // covers a first attempt that timed out and its retry, with seconds to spare (a wait with no delivery at the end
  // of it, as in a run with a delivery left out, lasts that long)
  const webhookMs = ATTEMPT_TIMEOUT_MS + RETRY_DELAYS_MS[0] + 6000;
  const profile = buildProfile({
    baseUrl,
    anonMcpUrl,
    tenants,
    webhookUrl: opts.webhookUrl,
    inactiveJobId: corpus.find((j) => !j.active)!.id,
    waits: {
      pipelineMs: delays.scoringMs + 5000,
      reviewMs: delays.scoringMs + delays.reviewMs + 5000,
      webhookMs,
    },
  });
  return {
    baseUrl,
    anonMcpUrl,
    profile,
    shapeStyle: shape,
    stop: async () => {
      timers.stop();
      await Promise.all([close(main), close(anon)]);
    },
  };
}
