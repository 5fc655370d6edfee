// The shape every conformance check has, and what a check receives to run. A check is registered in
// checks/index.ts, names the requirement ids it verifies, says what it needs from the target, and
// returns failures (typed values with evidence); it never prints.

import type { CheckUses } from './check-resources.js';
import type { HarnessConfig } from './config.js';
import type { HarnessContract } from './contract.js';
import type { Failure, FailureList } from './failure.js';
import type { PropertySpec } from './property.js';
import type { ControlClient } from './target/control.js';
import type { Target } from './target/target.js';
import type { Tenants } from './target/tenants.js';
import type { WebhookReceiver } from './target/webhook-receiver.js';
import type { ContractValidator } from './validation.js';

/** What a check may need beyond the public APIs. */
export type Capability =
  /** Tenants provisioned per check through the control API. */
  | 'freshTenants'
  /** Balances set through the control API. */
  | 'creditControl'
  /** The sandbox clock can be advanced. */
  | 'clock'
  /** Review decisions can be made through the control API. */
  | 'reviewDecisions'
  /** The target can post webhooks to the harness's receiver. */
  | 'webhooks'
  /** A valid key lacking a scope is available. */
  | 'noScopeKey'
  /** The anonymous MCP server's URL is known. */
  | 'anonMcp'
  /** Deliberately invalid requests reach the service (not refused by a validating proxy in front). */
  | 'negativeInput'
  /** The target is known to be this sandbox (its control API answered the admin token): D-03 magic inputs may be sent. */
  | 'thisSandbox';

export type Capabilities = Readonly<Record<Capability, boolean>>;

export interface Check {
  /** Stable id, e.g. screening.idempotency.replay. */
  id: string;
  title: string;
  /** Requirement ids (contracts/requirements.yaml) this check verifies. */
  requirements: readonly string[];
  appliesTo: {
    surface: 'screening' | 'jobs' | 'mcp' | 'anon-mcp' | 'site';
    needs?: readonly Capability[];
  };
  /** Runs after the other checks (it spends a shared budget such as a rate-limit window or the clock). */
  late?: boolean;
  /** What it shares with other checks, for running side by side (default: its entry in check-resources.ts). */
  uses?: CheckUses;
  /**
   * What a keys-only profile needs for this check beyond one key per tier, for the README's table
   * (e.g. "two tenants", "a spent key"); capabilities in `needs` speak for themselves.
   */
  keysOnly?: string;
  run(ctx: CheckContext): Promise<Failure[] | void>;
}

export interface CheckContext {
  readonly config: HarnessConfig;
  readonly contract: HarnessContract;
  readonly validator: ContractValidator;
  readonly target: Target;
  readonly tenants: Tenants;
  /** The control API client, when the profile has an admin token. */
  readonly control: ControlClient | null;
  readonly receiver: WebhookReceiver | null;
  readonly capabilities: Capabilities;
  readonly check: Check;
  /** Failures found so far (checks may also return theirs). */
  readonly failures: FailureList;
  /** Runs a fast-check property; its failures are added to `failures`. */
  property<T>(spec: PropertySpec<T>): Promise<void>;
  /** The run's number of cases, scaled (at least 1). */
  runs(scale?: number): number;
  /** Skips the rest of the check unless the capability is available. */
  need(cap: Capability): void;
  /**
   * Says that one of the check's requirements was not observed here (a precondition did not hold, a value
   * could not be read): it is reported as skipped with the reason, never as passed, while the check's
   * other requirements keep their verdicts.
   */
  unobserved(requirement: string, reason: string): void;
  /**
   * Runs a bounded wait for the target (a score, a review, a delivery) with the check's keys lent to the
   * checks queued behind it (waits.ts asyncWait); nothing the check compares may straddle it.
   */
  readonly whileWaiting?: <T>(fn: () => Promise<T>) => Promise<T>;
}

export const CAPABILITY_REASONS: Record<Capability, string> = {
  freshTenants: 'needs fresh tenants (an admin token for the control API)',
  creditControl: 'needs the control API to set credit balances',
  clock: 'needs the clock capability (advance the target clock)',
  reviewDecisions: 'needs the reviewDecisions capability (decide reviews through the control API)',
  webhooks:
    "needs a webhook receiver the target can reach: an admin token to point a fresh tenant at it, or, with fixed keys, webhookReceiverUrl (set by the operator as the tenants' webhookUrl) and webhookSecrets per key slot in the profile",
  noScopeKey:
    'needs a key without the scope (provisioned, or keys.noScreeningScope / noJobsScope / noMcpScope in the profile)',
  anonMcp: 'needs the anonymous MCP server URL (--anon-mcp)',
  negativeInput: 'the target refuses invalid requests itself (validating proxy), so the service never sees them',
  thisSandbox:
    'D-03: magic inputs are sent only to a target known to be this sandbox (its control API answered the admin token)',
};
