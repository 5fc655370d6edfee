// Client of the sandbox control API (/sandbox/v1, admin bearer token): what a human does in production
// (create tenants and keys, set balances, decide reviews) plus the sandbox clock and each tenant's clock. Only used when the
// profile offers an admin token; a failure here is a harness error, never a verdict on the target.

import { describe, jsonOf, statusOf, type Exchange } from './http.js';
import type { Target } from './target.js';

export type PlanTier = 'free' | 'starter' | 'pro' | 'scale';

export interface NewTenant {
  planTier: PlanTier;
  scopes?: string[];
  webhookUrl?: string;
  webhookSecret?: string;
  name?: string;
}

export interface TenantPatch {
  planTier?: PlanTier;
  screeningCredits?: number;
  applyCredits?: number;
  webhookUrl?: string | null;
  webhookSecret?: string;
  disabled?: boolean;
}

export interface PendingReview {
  requestId: string;
  tenantId: string;
  state: string;
}

export interface ReviewDecisionInput {
  decision: 'approved' | 'rejected' | 'edited';
  reviewerId: string;
  reviewerRole?: string;
  note?: string;
  editedScore?: number;
  editedRationale?: string;
}

export class ControlError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export class ControlClient {
  constructor(
    private readonly target: Target,
    private readonly adminToken: string,
  ) {}

  private async call(method: string, path: string, json?: unknown, expect: number[] = [200]): Promise<Exchange> {
    const ex = await this.target.call('control', {
      method,
      path: `/sandbox/v1${path}`,
      key: this.adminToken,
      ...(json !== undefined ? { json } : {}),
    });
    const s = statusOf(ex);
    if (s === undefined || !expect.includes(s)) {
      throw new ControlError(
        `control API: ${describe(ex)} (expected ${expect.join('/')}): ${ex.response?.body.slice(0, 300) ?? ex.error}`,
        ex,
      );
    }
    return ex;
  }

  /** True when the token opens the control API of this target. */
  async available(): Promise<boolean> {
    try {
      await this.call('GET', '/clock');
      return true;
    } catch {
      return false;
    }
  }

  async createTenant(input: NewTenant): Promise<{ tenantId: string; apiKey: string; webhookSecret: string | null }> {
    const ex = await this.call('POST', '/tenants', input, [201]);
    const j = jsonOf(ex);
    if (typeof j?.tenantId !== 'string' || typeof j?.apiKey !== 'string')
      throw new ControlError('control API: tenant creation answered without tenantId/apiKey', ex);
    return {
      tenantId: j.tenantId,
      apiKey: j.apiKey,
      webhookSecret: typeof j.webhookSecret === 'string' ? j.webhookSecret : (input.webhookSecret ?? null),
    };
  }

  async patchTenant(tenantId: string, patch: TenantPatch): Promise<void> {
    await this.call('PATCH', `/tenants/${encodeURIComponent(tenantId)}`, patch);
  }

  /** The target clock's current time (ms since the epoch). */
  async now(): Promise<number> {
    const ex = await this.call('GET', '/clock');
    const t = Date.parse(jsonOf(ex)?.now);
    if (Number.isNaN(t)) throw new ControlError('control API: GET /clock answered no `now` date-time', ex);
    return t;
  }

  /** Moves the sandbox clock, and every tenant's with it: only for what is no tenant's (the per-IP day). */
  async advanceClock(seconds: number): Promise<void> {
    await this.call('POST', '/clock/advance', { seconds });
  }

  // null until the first tenant-clock call tells whether the target has tenant clocks (D-120)
  private tenantClocks: boolean | null = null;

  /**
   * Moves one tenant's clock (D-122): what another client of the same target does on its own tenants is
   * left alone. On a target without tenant clocks (the route answers 404 for a tenant this run created),
   * the sandbox clock.
   */
  async advanceTenantClock(tenantId: string, seconds: number): Promise<void> {
    if (this.tenantClocks !== false) {
      const ex = await this.call(
        'POST',
        `/tenants/${encodeURIComponent(tenantId)}/clock/advance`,
        { seconds },
        [200, 404],
      );
      if (statusOf(ex) === 200) {
        this.tenantClocks = true;
        return;
      }
      this.tenantClocks = false;
    }
    await this.advanceClock(seconds);
  }

  /** The time on a tenant's clock (ms since the epoch); the sandbox clock's on a target without tenant clocks. */
  async tenantNow(tenantId: string): Promise<number> {
    if (this.tenantClocks !== false) {
      const ex = await this.call('GET', `/tenants/${encodeURIComponent(tenantId)}/clock`, undefined, [200, 404]);
      if (statusOf(ex) === 200) {
        this.tenantClocks = true;
        const t = Date.parse(jsonOf(ex)?.now);
        if (Number.isNaN(t))
          throw new ControlError('control API: GET /tenants/{id}/clock answered no `now` date-time', ex);
        return t;
      }
      this.tenantClocks = false;
    }
    return this.now();
  }

  /**
   * Waits (bounded) until the target has recorded `n` attempts of a request's delivery of `event`;
   * returns how many it has recorded. A receiver sees an attempt before the target hears the answer.
   */
  async attemptsRecorded(requestId: string, event: string, n: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ex = await this.call(
        'GET',
        `/webhooks/deliveries?requestId=${encodeURIComponent(requestId)}&event=${encodeURIComponent(event)}`,
      );
      const list = jsonOf(ex)?.deliveries;
      if (!Array.isArray(list))
        throw new ControlError('control API: GET /webhooks/deliveries answered without a deliveries array', ex);
      const count = Math.max(
        0,
        ...list.map((d: { attempts?: unknown[] }) => (Array.isArray(d.attempts) ? d.attempts.length : 0)),
      );
      if (count >= n || Date.now() >= deadline) return count;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async reviews(tenantId: string, state = 'pending_review'): Promise<PendingReview[]> {
    const ex = await this.call(
      'GET',
      `/reviews?state=${encodeURIComponent(state)}&tenantId=${encodeURIComponent(tenantId)}`,
    );
    const list = jsonOf(ex)?.reviews;
    if (!Array.isArray(list)) throw new ControlError('control API: GET /reviews answered without a reviews array', ex);
    return list;
  }

  async decide(requestId: string, input: ReviewDecisionInput): Promise<Exchange> {
    return this.call('POST', `/reviews/${encodeURIComponent(requestId)}/decision`, input);
  }
}
