// Requirements: none of the documents (a sandbox helper); decisions D-134.
// The automatic reviewer of a tenant (D-134): a setting, off by default, that decides each of the
// tenant's queued reviews `afterSeconds` after it was queued, on the tenant's clock (a timer like the
// review expiry), by one rule, through the same decision function a person's decision goes through (the
// ledger row's actor is `reviewer:auto`, the `screening.review_decided` delivery is the same).
//   { afterSeconds, rule: 'approve' | 'reject' }                               always that decision
//   { afterSeconds, rule: 'approve_if_score_at_least', minScore, else? }        approved when score >= minScore,
//                                                                               else `else` ('rejected' by default)
//   { afterSeconds, rule: 'edit', editedScore }                                 edited, with that score
// A request already decided (or expired) when its timer fires is left alone; the setting read is the one
// in force when the timer fires, so turning it off stops the decisions still to come.

import { invalid } from '../../errors/errors.js';
import type { CoreContext } from '../context.js';
import { limits } from '../plans.js';
import type { Tenant } from '../tenants.js';
import type { DecisionInput } from './review.js';
import type { RequestStore } from './requests.js';
import type { ScreeningRequest } from './types.js';

export const AUTO_REVIEW_RULES = ['approve', 'reject', 'approve_if_score_at_least', 'edit'] as const;
export type AutoReviewRule = (typeof AUTO_REVIEW_RULES)[number];

export interface AutoReview {
  afterSeconds: number;
  rule: AutoReviewRule;
  /** approve_if_score_at_least: the least score approved. */
  minScore?: number;
  /** approve_if_score_at_least: the decision below minScore. */
  else?: 'rejected' | 'edited';
  /** edit (and `else: 'edited'`): the score the reviewer sets. */
  editedScore?: number;
}

/** The reviewer id of the automatic reviewer: its ledger actor is `reviewer:auto`. */
export const AUTO_REVIEWER_ID = 'auto';
const AUTO_REVIEWER_ROLE = 'automatic reviewer';
const KEYS = ['afterSeconds', 'rule', 'minScore', 'else', 'editedScore'];

const score = (v: unknown, name: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100)
    throw invalid(`autoReview.${name} must be a number from 0 to 100`, `autoReview.${name}`);
  return v;
};

/** Reads the setting from a request body: null turns it off; anything malformed is a 400 naming the field. */
export function parseAutoReview(v: unknown): AutoReview | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalid(
      'autoReview must be an object such as { "afterSeconds": 60, "rule": "approve" }, or null to turn it off',
      'autoReview',
    );
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.includes(k))
      throw invalid(`unknown property 'autoReview.${k}'; allowed: ${KEYS.join(', ')}`, `autoReview.${k}`);
  const maxSeconds = limits.policy.reviewWindowHours * 3600;
  const after = o.afterSeconds;
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 0 || after >= maxSeconds) {
    throw invalid(
      `autoReview.afterSeconds must be a whole number of seconds from 0 to ${maxSeconds - 1} (inside the review window)`,
      'autoReview.afterSeconds',
    );
  }
  if (!(AUTO_REVIEW_RULES as readonly unknown[]).includes(o.rule))
    throw invalid(`autoReview.rule must be one of ${AUTO_REVIEW_RULES.join(', ')}`, 'autoReview.rule');
  const rule = o.rule as AutoReviewRule;
  const out: AutoReview = { afterSeconds: after, rule };
  if (rule === 'approve_if_score_at_least') {
    out.minScore = score(o.minScore, 'minScore');
    if (o.else !== undefined && o.else !== 'rejected' && o.else !== 'edited')
      throw invalid("autoReview.else must be 'rejected' or 'edited'", 'autoReview.else');
    out.else = o.else ?? 'rejected';
  } else if (o.minScore !== undefined || o.else !== undefined) {
    throw invalid(
      "autoReview.minScore and autoReview.else go with rule 'approve_if_score_at_least'",
      o.minScore !== undefined ? 'autoReview.minScore' : 'autoReview.else',
    );
  }
  const needsEdit = rule === 'edit' || out.else === 'edited';
  if (needsEdit) out.editedScore = score(o.editedScore, 'editedScore');
  else if (o.editedScore !== undefined)
    throw invalid("autoReview.editedScore goes with rule 'edit' or else 'edited'", 'autoReview.editedScore');
  return out;
}

/** The decision the setting makes on a request (its score as scored). */
export function autoDecision(setting: AutoReview, req: ScreeningRequest): DecisionInput {
  const base = { reviewerId: AUTO_REVIEWER_ID, reviewerRole: AUTO_REVIEWER_ROLE };
  const edited = (): DecisionInput => ({
    ...base,
    decision: 'edited',
    editedScore: setting.editedScore,
    note: `automatic review: score set to ${setting.editedScore}`,
  });
  switch (setting.rule) {
    case 'approve':
      return { ...base, decision: 'approved', note: 'automatic review: approve' };
    case 'reject':
      return { ...base, decision: 'rejected', note: 'automatic review: reject' };
    case 'edit':
      return edited();
    case 'approve_if_score_at_least': {
      const s = req.score?.score ?? 0;
      if (s >= (setting.minScore ?? 0))
        return { ...base, decision: 'approved', note: `automatic review: score ${s} is at least ${setting.minScore}` };
      if (setting.else === 'edited') return edited();
      return { ...base, decision: 'rejected', note: `automatic review: score ${s} is below ${setting.minScore}` };
    }
  }
}

/**
 * Schedules and fires the automatic decisions: `queued` when a request enters pending review, `enabled`
 * when a tenant turns the setting on (its requests already waiting get their timer from then).
 */
export class AutoReviewer {
  constructor(
    private readonly ctx: CoreContext,
    private readonly requests: RequestStore,
    private readonly decide: (requestId: string, input: DecisionInput) => void,
  ) {}

  private tenantOf(id: string): Tenant | null {
    try {
      return this.ctx.tenants.get(id);
    } catch {
      return null;
    }
  }

  queued(req: ScreeningRequest): void {
    const setting = this.tenantOf(req.tenantId)?.autoReview;
    if (setting) this.schedule(req, setting);
  }

  enabled(tenant: Tenant): void {
    if (!tenant.autoReview) return;
    for (const req of this.requests.ordered(tenant.id))
      if (req.state === 'pending_review') this.schedule(req, tenant.autoReview);
  }

  private schedule(req: ScreeningRequest, setting: AutoReview): void {
    const clock = this.ctx.clock.of(req.tenantId);
    clock.scheduleCall(clock.now() + setting.afterSeconds * 1000, this.due, req, 'auto review');
  }

  /** Re-arms a restored request's automatic decision at the time it was due (D-136). */
  rearm(req: ScreeningRequest, at: number): void {
    this.ctx.clock.of(req.tenantId).scheduleCall(at, this.due, req, 'auto review');
  }

  // one function for every timer (like the expiry's): the setting in force now decides
  private readonly due = (req: ScreeningRequest): void => {
    if (req.state !== 'pending_review' || this.requests.get(req.id) !== req) return;
    const setting = this.tenantOf(req.tenantId)?.autoReview;
    if (!setting) return;
    this.decide(req.id, autoDecision(setting, req));
  };
}
