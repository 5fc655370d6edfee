// Planted bugs: the one file that lists them, says where each applies, and holds what each one does.
// Each breaks one rule of the specification on purpose, so that a test can prove the conformance harness
// catches it (README "Planted bugs"); all are off by default and switched by name (config `bugs`, the
// control API's /sandbox/v1/bugs). Every path reaches a bug through the one step or domain function named
// below, which calls the bug's hook here (BUG_SITES): REST's routed app and its fast path share the web
// kernel's steps, and REST and MCP share the domain, so no path carries a copy of a bug of its own.
// Requirements: none of the documents (a sandbox convenience); decisions D-38, D-131.

export const BUGS = {
  charge_twice_on_replay: 'an idempotent replay charges a second screening credit',
  replay_returns_201: 'an idempotent replay answers 201 instead of 200',
  drop_ratelimit_remaining: 'jobs responses omit the X-RateLimit-Remaining header',
  wrong_webhook_secret: 'webhook deliveries are signed with a wrong secret',
  leak_audit_rows: "the audit export includes another tenant's rows",
  crash_on_empty_musthaves: 'a submit with an empty mustHaves list answers 500',
  skip_ledger_row: 'the scoring transition writes no ledger row',
  sponsored_on_paid: 'paid-tier search results include sponsored listings',
  no_retry_after: '429 responses omit the Retry-After header',
  since_on_every_page: 'the audit `since` filter is re-applied on cursor pages (rows are skipped)',
  anon_exposes_apply: 'the anonymous MCP server also lists apply_to_job',
  usage_other_tenant: "usage reports another tenant's wallet",
} as const;

export type BugName = keyof typeof BUGS;

export const isBugName = (v: string): v is BugName => Object.hasOwn(BUGS, v);

/** The hooks of PlantedBugs: what a call site asks instead of a bug's name. */
export type PlantedHook = Exclude<keyof PlantedBugs, 'catalogue'>;

/**
 * Where each bug applies: the hook of PlantedBugs that holds it, and the one file (and function) every path
 * goes through that calls that hook, with the requirement it breaks.
 */
export const BUG_SITES: Record<BugName, { hook: PlantedHook; site: string }> = {
  charge_twice_on_replay: { hook: 'chargeOnReplay', site: 'domain/screening/submit.ts submit (REST and MCP submits)' },
  replay_returns_201: { hook: 'submitStatus', site: 'http/screening.ts submitAnswer (routed app and fast path)' },
  drop_ratelimit_remaining: {
    hook: 'writesRemaining',
    site: 'web/rateHeaders.ts writeRateHeaders, REST answers only (JOB-RATE-1)',
  },
  wrong_webhook_secret: { hook: 'signingSecret', site: 'domain/webhooks/attempt.ts signatureOf (every delivery)' },
  leak_audit_rows: { hook: 'leaksAuditRows', site: 'domain/screening/audit.ts page (REST and the console)' },
  crash_on_empty_musthaves: {
    hook: 'readFirstMustHave',
    site: 'domain/screening/submit.ts submit (REST and MCP submits)',
  },
  skip_ledger_row: {
    hook: 'writesScoredRow',
    site: 'domain/screening/pipeline.ts the scoring transition (REST and MCP submits)',
  },
  sponsored_on_paid: {
    hook: 'sponsoredOnPaid',
    site: 'domain/jobs/search.ts searchBody and paidSlots (REST and MCP searches)',
  },
  no_retry_after: {
    hook: 'keepsRetryAfter',
    site: 'web/rateHeaders.ts rateHeadersOnError, /api/v1 429 answers (JOB-RATE-3)',
  },
  since_on_every_page: { hook: 'cursorPageStart', site: 'domain/screening/audit.ts page, cursor pages' },
  anon_exposes_apply: { hook: 'anonTools', site: 'mcp/listing.ts anonListed (tools/list and the server card)' },
  usage_other_tenant: { hook: 'usageSource', site: 'domain/screening/usage.ts usageOf (REST and MCP)' },
};

/**
 * What each bug does, asked by the one place it applies (BUG_SITES): each hook is the only reader of its
 * bug's switch, and nothing outside this file names a bug (src/domain/bugs.test.ts).
 */
export class PlantedBugs {
  constructor(private readonly on: (name: BugName) => boolean) {}

  /** Every bug with its description and whether it is on (the control API's GET /faults). */
  catalogue(): { name: BugName; description: string; enabled: boolean }[] {
    return (Object.keys(BUGS) as BugName[]).map((name) => ({ name, description: BUGS[name], enabled: this.on(name) }));
  }

  /** replay_returns_201: a replay answered as if it were new. */
  submitStatus(replayed: boolean): 200 | 201 {
    return !replayed || this.on('replay_returns_201') ? 201 : 200;
  }

  /** drop_ratelimit_remaining: whether X-RateLimit-Remaining is written. */
  writesRemaining(): boolean {
    return !this.on('drop_ratelimit_remaining');
  }

  /** no_retry_after: whether a 429's Retry-After is kept. */
  keepsRetryAfter(status: number): boolean {
    return status !== 429 || !this.on('no_retry_after');
  }

  /** sponsored_on_paid: whether paid pages show promoted listings as sponsored. */
  sponsoredOnPaid(): boolean {
    return this.on('sponsored_on_paid');
  }

  /** skip_ledger_row: whether the scoring transition writes its ledger row. */
  writesScoredRow(): boolean {
    return !this.on('skip_ledger_row');
  }

  /** crash_on_empty_musthaves: an unguarded read of the first must-have. */
  readFirstMustHave(mustHaves: readonly string[]): void {
    if (mustHaves.length === 0 && this.on('crash_on_empty_musthaves')) {
      throw new TypeError("Cannot read properties of undefined (reading 'toLowerCase')");
    }
  }

  /** charge_twice_on_replay: a replay charges again. */
  chargeOnReplay(charge: () => void): void {
    if (this.on('charge_twice_on_replay')) charge();
  }

  /** since_on_every_page: `since` re-applied on a cursor page as an exclusive bound, dropping a row per page. */
  cursorPageStart(start: number, since: number | undefined): number {
    return since !== undefined && this.on('since_on_every_page') ? start + 1 : start;
  }

  /** leak_audit_rows: whether rows of another tenant take the end of an audit page. */
  leaksAuditRows(): boolean {
    return this.on('leak_audit_rows');
  }

  /** usage_other_tenant: whose wallet a usage report reads. */
  usageSource<T extends { id: string }>(tenant: T, all: () => readonly T[]): T {
    return this.on('usage_other_tenant') ? (all().find((t) => t.id !== tenant.id) ?? tenant) : tenant;
  }

  /** wrong_webhook_secret: the secret deliveries are signed with. */
  signingSecret(secret: string): string {
    return this.on('wrong_webhook_secret') ? `${secret}-wrong` : secret;
  }

  /** anon_exposes_apply: the anonymous server's tools, with the keyed apply tool added. */
  anonTools<T>(tools: T[], keyedApply: () => T[]): T[] {
    if (this.on('anon_exposes_apply')) tools.push(...keyedApply());
    return tools;
  }
}
