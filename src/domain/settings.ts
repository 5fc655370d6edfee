// The resolved settings the core is built from. The composition root (src/config.ts) turns flags and
// environment variables into these values and hands them down; nothing below the root reads them from
// anywhere else.
// Requirements: none (configuration values).

export interface Settings {
  host: string;
  port: number;
  anonMcpPort: number;
  /** Bearer token for /sandbox/v1 and the console. */
  adminToken: string;
  /** True when the admin token was generated (so start-up prints it). */
  adminTokenGenerated: boolean;
  seed: number;
  /** Number of active jobs in the generated corpus. */
  corpusSize: number;
  /** Seed demo tenants and keys from fixtures/. */
  seedDemo: boolean;
  /** Validate every response against the contract (on in tests); a mismatch becomes a 500 with details. */
  selfCheck: boolean;
  /** Lift all rate limits (benchmarks), reported as such. */
  noRateLimits: boolean;
  /** Planted bugs switched on at start (see faults.ts). */
  bugs: string[];
  /** Public base URL used in links the sandbox returns (defaults to http://host:port). */
  publicUrl: string;
  /** Where the account dashboard is reached (default `<publicUrl>/app`); the 402 upsell links its billing page. */
  appUrl: string;
  /** Log one line per request to stdout. */
  log: boolean;
  /** Answer the hot REST reads on the server's fast path (on by default; off only to compare the two paths). */
  fastPath: boolean;
  /** A shared sandbox writes a snapshot of its state every this many steps of its log (D-138). */
  snapshotEvery: number;
  /** A shared sandbox keeps at most this many idle tenants in memory and loads the others on demand (D-150); 0: all. */
  residentTenants: number;
  /** Calls of one caller in progress at once before its later calls wait their turn (D-165); 0: no limit. */
  callsPerCaller: number;
}
