// Two kinds of switches, all off by default:
// - chaos rules, for integrators exercising their retry logic: make the next N calls (or a share of
//   calls) of an endpoint answer 429, 503 or 500, add latency, or fail webhook deliveries;
// - planted bugs, each breaking one rule of the specification on purpose, so that a test can prove
//   the conformance harness catches it (see README "Planted bugs").
// A chaos rule may belong to one tenant: it then matches only that tenant's calls and deliveries (D-121).
// Requirements: none of the documents (chaos rules and planted bugs are sandbox conveniences); decisions D-38, D-121.

import { invalid } from '../errors/errors.js';
import { BUGS, isBugName, PlantedBugs, type BugName } from './bugs.js';
import { tagOfTenant, TenantRngs, type Rng } from './rng.js';

// the list of planted bugs, where each applies and what each does: bugs.ts
export { BUGS, isBugName, type BugName } from './bugs.js';

export type ChaosMode = 'status' | 'latency' | 'webhook_failure';

export interface ChaosRuleInput {
  /** Path prefix the rule matches, e.g. /api/v1/jobs or /api/screening/v1/screen; '*' for every API path. */
  path?: string;
  /** HTTP method to match; any when omitted. */
  method?: string;
  mode: ChaosMode;
  /** For mode 'status': 429, 500 or 503. For 'webhook_failure': the status the receiver is reported to answer. */
  status?: 429 | 500 | 503;
  /** For mode 'latency': milliseconds added before the answer. */
  latencyMs?: number;
  /** Apply to the next N matching calls, then expire. */
  count?: number;
  /** Apply to this share (0..1) of matching calls; default 1. */
  ratio?: number;
  /** Only this tenant's calls and deliveries; every caller's when omitted (D-121). */
  tenantId?: string;
}

export interface ChaosRule extends Required<Pick<ChaosRuleInput, 'mode'>> {
  id: string;
  path: string;
  method: string | null;
  status: 429 | 500 | 503 | null;
  latencyMs: number;
  remaining: number | null;
  ratio: number;
  hits: number;
  createdAt: string;
  /** The tenant whose calls and deliveries the rule matches; null: everyone's. */
  tenantId: string | null;
}

// Every API call asks; with no rules (the usual case) the answer is this one shared empty list.
const NONE_FIRED: readonly ChaosRule[] = Object.freeze([]);

/** Active chaos rules at most (D-103). */
export const MAX_RULES = 100;

export interface FaultsState {
  bugs: string[];
  seq: number;
  rng: number;
  rules: ChaosRule[];
}

/** A tenant's rules, its rule counter and its ratio generator's position (D-147). */
export interface FaultsTenantState {
  rules: ChaosRule[];
  seq: number;
  rng: number | null;
}

/** A rule's number in its owner's sequence (`flt_<n>` or `flt_<n>_<tag>`). */
const numberOf = (r: ChaosRule): number => parseInt(r.id.slice(4), 10);

/**
 * The order rules are tried and listed in: the rules of no tenant first, then each tenant's, each in the order
 * they were made. It is a function of the rules alone, so a tenant's rules go back to their places when it is
 * imported again, and a tenant's call meets the same rules in the same order whatever other tenants made.
 */
const ruleBefore = (a: ChaosRule, b: ChaosRule): boolean =>
  a.tenantId === b.tenantId
    ? numberOf(a) < numberOf(b)
    : a.tenantId === null || (b.tenantId !== null && a.tenantId < b.tenantId);

export class Faults {
  private bugs = new Set<BugName>();
  /** The planted bugs' effects, each asked where it applies (bugs.ts). */
  readonly planted = new PlantedBugs((name) => this.bugs.has(name));
  private rules: ChaosRule[] = [];
  private seq = 0;
  /** Each tenant's rule counter: a tenant's rule ids come from its own sequence and carry its tag (D-147). */
  private seqOf = new Map<string, number>();
  /** Ratio draws for a tenant's calls and deliveries come from that tenant's stream (D-147). */
  private readonly rngs: TenantRngs;
  /** How many active rules belong to one tenant: with none, a call's tenant need not be known. */
  private scopedCount = 0;
  /** How many active rules apply to a share of calls (they draw, from the caller's tenant's stream). */
  private ratioCount = 0;
  /**
   * How many times a rule of no tenant fired (its hits and count are global state): a shared sandbox marks a tenant's
   * step that changed it, so that every instance applies that step (D-172).
   */
  globalFires = 0;

  constructor(
    private readonly rng: Rng,
    private readonly nowIso: () => string,
    initialBugs: readonly string[] = [],
  ) {
    this.rngs = new TenantRngs(rng.position);
    for (const b of initialBugs) this.enableBug(b);
  }

  /** Whether any chaos rule is active: with none, take() fires nothing and changes nothing. */
  get armed(): boolean {
    return this.rules.length > 0;
  }

  /** Whether a rule of no tenant is active: a tenant's call may then fire it, changing global state (D-172). */
  get ofNoTenant(): boolean {
    return this.scopedCount < this.rules.length;
  }

  /** Whether any active rule belongs to one tenant (then take() needs the caller's tenant). */
  get scoped(): boolean {
    return this.scopedCount > 0;
  }

  /** Whether take() needs the caller's tenant: a rule of one tenant, or a rule that draws, is active. */
  get needsTenant(): boolean {
    return this.scopedCount > 0 || this.ratioCount > 0;
  }

  enableBug(name: string): void {
    if (!isBugName(name)) throw invalid(`unknown bug '${name}'; known: ${Object.keys(BUGS).join(', ')}`, 'bug');
    this.bugs.add(name);
  }

  disableBug(name: string): void {
    this.bugs.delete(name as BugName);
  }

  activeBugs(): BugName[] {
    return [...this.bugs];
  }

  addRule(input: ChaosRuleInput): ChaosRule {
    const modes: ChaosMode[] = ['status', 'latency', 'webhook_failure'];
    if (!modes.includes(input.mode)) throw invalid(`mode must be one of ${modes.join(', ')}`, 'mode');
    if (input.mode === 'status' && ![429, 500, 503].includes(input.status as number)) {
      throw invalid('status must be 429, 500 or 503 for mode "status"', 'status');
    }
    if (
      input.mode === 'latency' &&
      !(Number.isInteger(input.latencyMs) && input.latencyMs! >= 0 && input.latencyMs! <= 30_000)
    ) {
      throw invalid('latencyMs must be an integer from 0 to 30000 for mode "latency"', 'latencyMs');
    }
    if (input.count !== undefined && !(Number.isInteger(input.count) && input.count >= 1)) {
      throw invalid('count must be a positive integer', 'count');
    }
    if (input.ratio !== undefined && !(typeof input.ratio === 'number' && input.ratio > 0 && input.ratio <= 1)) {
      throw invalid('ratio must be a number in (0, 1]', 'ratio');
    }
    // every API call walks the rules, and the list is answered whole: keep both bounded (D-103)
    if (this.rules.length >= MAX_RULES)
      throw invalid(`at most ${MAX_RULES} chaos rules can be active; remove some first`, 'mode');
    const owner = input.tenantId ?? null;
    let id: string;
    if (owner === null) id = `flt_${++this.seq}`;
    else {
      const n = (this.seqOf.get(owner) ?? 0) + 1;
      this.seqOf.set(owner, n);
      id = `flt_${n}_${tagOfTenant(owner)}`;
    }
    const rule: ChaosRule = {
      id,
      path: input.path ?? '*',
      method: input.method ? input.method.toUpperCase() : null,
      mode: input.mode,
      status: input.mode === 'latency' ? null : (input.status ?? (input.mode === 'webhook_failure' ? 500 : null)),
      latencyMs: input.latencyMs ?? 0,
      remaining: input.count ?? null,
      ratio: input.ratio ?? 1,
      hits: 0,
      createdAt: this.nowIso(),
      tenantId: owner,
    };
    let i = this.rules.length;
    while (i > 0 && ruleBefore(rule, this.rules[i - 1])) i--;
    this.rules.splice(i, 0, rule);
    this.recount();
    return rule;
  }

  /** Every active rule, or only those of one tenant. */
  listRules(tenantId?: string): ChaosRule[] {
    return this.rules.filter((r) => tenantId === undefined || r.tenantId === tenantId).map((r) => ({ ...r }));
  }

  /** The rule with this id, if active. */
  rule(id: string): ChaosRule | undefined {
    const r = this.rules.find((x) => x.id === id);
    return r && { ...r };
  }

  removeRule(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.recount();
    return this.rules.length < before;
  }

  /** Removes every rule, or only one tenant's. */
  clearRules(tenantId?: string): void {
    this.rules = tenantId === undefined ? [] : this.rules.filter((r) => r.tenantId !== tenantId);
    this.recount();
  }

  /**
   * The rules that fire for this call of `tenantId` (null: a call no tenant's key identifies), consuming
   * counts; webhook rules are taken by takeWebhookFailure.
   */
  take(method: string, path: string, tenantId: string | null = null): readonly ChaosRule[] {
    if (this.rules.length === 0) return NONE_FIRED;
    const fired: ChaosRule[] = [];
    for (const r of this.rules) {
      if (r.mode === 'webhook_failure') continue;
      if (r.tenantId !== null && r.tenantId !== tenantId) continue;
      if (r.method && r.method !== method.toUpperCase()) continue;
      if (r.path !== '*' && !path.startsWith(r.path)) continue;
      if (this.fire(r, tenantId)) fired.push({ ...r });
    }
    this.drop();
    return fired;
  }

  /** The status a delivery attempt of `tenantId` should be reported failing with, or null. */
  takeWebhookFailure(tenantId: string): number | null {
    for (const r of this.rules) {
      if (r.mode !== 'webhook_failure') continue;
      if (r.tenantId !== null && r.tenantId !== tenantId) continue;
      if (this.fire(r, tenantId)) {
        this.drop();
        return r.status ?? 500;
      }
    }
    return null;
  }

  reset(): void {
    this.rules = [];
    this.recount();
  }

  /** The planted bugs, the rules of no tenant, the rule counter and the ratio generator's position (D-137). */
  exportState(): FaultsState {
    return {
      bugs: [...this.bugs],
      seq: this.seq,
      rng: this.rng.position,
      rules: structuredClone(this.rules.filter((r) => r.tenantId === null)),
    };
  }

  importState(state: FaultsState): void {
    this.bugs = new Set(state.bugs.filter(isBugName));
    this.seq = state.seq;
    this.rng.moveTo(state.rng);
    this.seqOf.clear();
    this.rngs.clear();
    this.putRules(null, state.rules);
  }

  /** A tenant's rules with their remaining counts, its rule counter and its ratio stream (D-147). */
  exportTenant(tenantId: string): FaultsTenantState {
    return {
      rules: structuredClone(this.rules.filter((r) => r.tenantId === tenantId)),
      seq: this.seqOf.get(tenantId) ?? 0,
      rng: this.rngs.exportTenant(tenantId),
    };
  }

  importTenant(tenantId: string, state: FaultsTenantState): void {
    this.putRules(tenantId, state.rules);
    if (state.seq > 0) this.seqOf.set(tenantId, state.seq);
    else this.seqOf.delete(tenantId);
    this.rngs.importTenant(tenantId, state.rng);
  }

  forgetTenant(tenantId: string): void {
    this.clearRules(tenantId);
    this.seqOf.delete(tenantId);
    this.rngs.forgetTenant(tenantId);
  }

  /** Replaces the rules of one owner, keeping every rule in its place (rules are tried in order). */
  private putRules(tenantId: string | null, rules: readonly ChaosRule[]): void {
    this.rules = [...this.rules.filter((r) => r.tenantId !== tenantId), ...structuredClone([...rules])].sort((a, b) =>
      ruleBefore(a, b) ? -1 : ruleBefore(b, a) ? 1 : 0,
    );
    this.recount();
  }

  /** Drops the rules whose count is spent. */
  private drop(): void {
    if (this.rules.some((r) => r.remaining === 0)) {
      this.rules = this.rules.filter((r) => r.remaining !== 0);
      this.recount();
    }
  }

  private recount(): void {
    this.scopedCount = this.rules.reduce((n, r) => n + (r.tenantId !== null ? 1 : 0), 0);
    this.ratioCount = this.rules.reduce((n, r) => n + (r.ratio < 1 ? 1 : 0), 0);
  }

  /** A share-of-calls rule draws from the stream of the tenant whose call or delivery it is; else the global one. */
  private fire(r: ChaosRule, tenantId: string | null): boolean {
    if (r.remaining === 0) return false;
    if (r.ratio < 1 && (tenantId === null ? this.rng : this.rngs.of(tenantId)).next() >= r.ratio) return false;
    r.hits++;
    if (r.remaining !== null) r.remaining--;
    if (r.tenantId === null) this.globalFires++;
    return true;
  }
}
