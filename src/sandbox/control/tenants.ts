// Control API: tenants and keys. POST creates a tenant and shows its key once; PATCH changes tier,
// webhook settings, credit balances and the disabled flag.

import { Hono } from 'hono';
import { forbidden, invalid } from '../../errors/errors.js';
import { isPlanTier, jobsLimitsOf, type PlanTier } from '../../domain/plans.js';
import { parseAutoReview } from '../../domain/screening/autoReview.js';
import { SCOPES, type Scope, type Tenant } from '../../domain/tenants.js';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys, optBool, optInt, optString, readObject } from './admin.js';
import { ownTenant, tenantFor } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

/** How long the previous secret keeps signing after a rotation, unless the caller says (D-101). */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

function parseTier(v: unknown): PlanTier {
  if (!isPlanTier(v)) throw invalid(`planTier must be one of free, starter, pro, scale`, 'planTier');
  return v;
}

function parseScopes(v: unknown): Scope[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((s) => !(SCOPES as readonly string[]).includes(s))) {
    throw invalid(`scopes must be an array of: ${SCOPES.join(', ')}`, 'scopes');
  }
  return v as Scope[];
}

function parseWebhookUrl(v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw invalid('webhookUrl must be an http(s) URL or null', 'webhookUrl');
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw invalid('webhookUrl must be an absolute http(s) URL', 'webhookUrl');
  }
  return v;
}

export function tenantView(t: Tenant, now: number) {
  // as of now, without changing the wallets (a read is no step, D-162)
  const screening = t.screeningWallet.at(now);
  const apply = t.applyWallet.at(now);
  return {
    tenantId: t.id,
    name: t.name,
    planTier: t.planTier,
    disabled: t.disabled,
    webhookUrl: t.webhookUrl,
    webhookSecret: t.webhookSecret,
    // the rotated-out secret while it still signs (X-Screening-Signature-Previous), D-101
    previousWebhookSecret:
      t.previousSecretExpiresAt !== null && t.previousSecretExpiresAt > now ? t.previousWebhookSecret : null,
    previousSecretExpiresAt:
      t.previousSecretExpiresAt !== null && t.previousSecretExpiresAt > now
        ? new Date(t.previousSecretExpiresAt).toISOString()
        : null,
    screeningCredits: {
      remaining: screening.remaining,
      cap: screening.cap,
      resetAt: screening.resetAt === null ? null : new Date(screening.resetAt).toISOString(),
    },
    applyCredits: {
      remaining: apply.remaining,
      perMonth: jobsLimitsOf(t.planTier).applyCreditsPerMonth,
      resetAt: apply.resetAt === null ? null : new Date(apply.resetAt).toISOString(),
    },
    autoReview: t.autoReview === null ? null : { ...t.autoReview },
    createdAt: new Date(t.createdAt).toISOString(),
  };
}

/** What PATCH /tenants/{id} lets a tenant's own key change; the rest is the operator's. */
const TENANT_FIELDS = ['name', 'webhookUrl', 'webhookSecret', 'autoReview'] as const;
const OPERATOR_FIELDS = ['planTier', 'disabled', 'screeningCredits', 'applyCredits'] as const;

export function tenantRoutes() {
  const r = new Hono<AppEnv>();

  r.post('/', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['planTier', 'name', 'scopes', 'webhookUrl', 'webhookSecret']);
    const { tenants } = c.var.core;
    const webhookSecret = optString(body, 'webhookSecret', 500);
    if (webhookSecret !== undefined && webhookSecret.length < 8)
      throw invalid('webhookSecret must be at least 8 characters', 'webhookSecret');
    const { tenant, apiKey, key } = tenants.create({
      planTier: parseTier(body.planTier),
      name: optString(body, 'name', 200),
      scopes: parseScopes(body.scopes),
      webhookUrl: parseWebhookUrl(body.webhookUrl),
      webhookSecret,
    });
    return c.json({ ...tenantView(tenant, tenant.clock.now()), apiKey, keyId: key.id, scopes: key.scopes }, 201);
  });

  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, PAGE_PARAMS);
    const { tenants } = c.var.core;
    const page = pageOf(tenants.ordered(), readPageQuery(query), (t) => t.id);
    return c.json({ tenants: page.items.map((t) => tenantView(t, t.clock.now())), nextCursor: page.nextCursor });
  });

  r.get('/:tenantId', (c) => {
    const { tenants } = c.var.core;
    const t = tenants.get(tenantFor(c, c.req.param('tenantId'))!);
    const keys = tenants
      .keysOf(t.id)
      .map((k) => ({ keyId: k.id, hint: k.hint, scopes: k.scopes, createdAt: new Date(k.createdAt).toISOString() }));
    return c.json({ ...tenantView(t, t.clock.now()), keys });
  });

  r.patch('/:tenantId', async (c) => {
    const { tenants } = c.var.core;
    const t = tenants.get(tenantFor(c, c.req.param('tenantId'))!);
    const body = await readObject(c);
    onlyKeys(body, [
      'planTier',
      'name',
      'webhookUrl',
      'webhookSecret',
      'disabled',
      'screeningCredits',
      'applyCredits',
      'autoReview',
    ]);
    // the tier, the balances and the disabled flag are the operator's (and the billing page's), never a key's own (D-133)
    if (ownTenant(c) !== undefined) {
      const operatorOnly = OPERATOR_FIELDS.find((k) => body[k] !== undefined);
      if (operatorOnly)
        throw forbidden(
          `${operatorOnly} is set by the operator; a tenant's key may change ${TENANT_FIELDS.join(', ')}`,
        );
    }
    // validate everything before changing anything
    const tier = body.planTier === undefined ? undefined : parseTier(body.planTier);
    const webhookUrl = parseWebhookUrl(body.webhookUrl);
    const webhookSecret = optString(body, 'webhookSecret', 500);
    if (webhookSecret !== undefined && webhookSecret.length < 8)
      throw invalid('webhookSecret must be at least 8 characters', 'webhookSecret');
    const disabled = optBool(body, 'disabled');
    const name = optString(body, 'name', 200);
    const screeningCredits = optInt(body, 'screeningCredits', 0, 1_000_000);
    const applyCredits = optInt(body, 'applyCredits', 0, 1_000_000);
    const autoReview = body.autoReview === undefined ? undefined : parseAutoReview(body.autoReview);
    if (tier !== undefined && tier !== t.planTier) tenants.applyPlan(t, tier);
    if (webhookUrl !== undefined) t.webhookUrl = webhookUrl;
    if (webhookSecret !== undefined) t.webhookSecret = webhookSecret;
    if (disabled !== undefined) t.disabled = disabled;
    if (name !== undefined) t.name = name;
    if (screeningCredits !== undefined) t.screeningWallet.setRemaining(screeningCredits, t.clock.now());
    if (applyCredits !== undefined) t.applyWallet.setRemaining(applyCredits, t.clock.now());
    if (autoReview !== undefined) c.var.core.screening.setAutoReview(t, autoReview);
    return c.json(tenantView(t, t.clock.now()));
  });

  // a new secret; the old one keeps signing beside it for overlapSeconds (default 24 h)
  r.post('/:tenantId/webhook-secret/rotate', async (c) => {
    const { tenants } = c.var.core;
    const t = tenants.get(tenantFor(c, c.req.param('tenantId'))!);
    const body = await readObject(c, true);
    onlyKeys(body, ['overlapSeconds', 'webhookSecret']);
    const overlap = optInt(body, 'overlapSeconds', 0, 7 * 86400) ?? ROTATION_OVERLAP_SECONDS;
    const next = optString(body, 'webhookSecret', 500);
    if (next !== undefined && next.length < 8)
      throw invalid('webhookSecret must be at least 8 characters', 'webhookSecret');
    tenants.rotateWebhookSecret(t, overlap, next);
    return c.json(tenantView(t, t.clock.now()));
  });

  r.post('/:tenantId/keys', async (c) => {
    const { tenants } = c.var.core;
    const t = tenants.get(c.req.param('tenantId'));
    const body = await readObject(c, true);
    onlyKeys(body, ['scopes']);
    const { apiKey, key } = tenants.issueKey(t.id, parseScopes(body.scopes) ?? [...SCOPES]);
    return c.json({ tenantId: t.id, keyId: key.id, apiKey, scopes: key.scopes }, 201);
  });

  return r;
}
