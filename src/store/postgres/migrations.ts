// The PostgreSQL schema as versioned migrations, applied in order at start-up (migrate.ts). A
// migration is never edited once released: a change to the schema is a new entry at the end.
// Times are milliseconds on the sandbox clock (bigint); ids are text, unique across instances.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'the store port: every holder of state',
    sql: `
      -- one-of-a-kind values shared by every instance: the clock offset, the cursor secret, the seed mark
      CREATE TABLE sandbox_meta (key text PRIMARY KEY, value text NOT NULL);

      CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        plan_tier text NOT NULL,
        disabled boolean NOT NULL DEFAULT false,
        webhook_url text,
        webhook_secret text NOT NULL,
        previous_webhook_secret text,
        previous_secret_expires_at bigint,
        created_at bigint NOT NULL,
        -- the last ledger sequence number of this tenant: allocated under this row's lock
        ledger_seq bigint NOT NULL DEFAULT 0,
        screening_cap integer NOT NULL,
        screening_remaining integer NOT NULL CHECK (screening_remaining >= 0),
        screening_reset_at bigint,
        apply_cap integer NOT NULL,
        apply_remaining integer NOT NULL CHECK (apply_remaining >= 0),
        apply_reset_at bigint
      );

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        hash text NOT NULL UNIQUE,
        hint text NOT NULL,
        scopes text[] NOT NULL,
        created_at bigint NOT NULL
      );

      CREATE TABLE screening_requests (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        idempotency_key text NOT NULL,
        state text NOT NULL,
        submission jsonb NOT NULL,
        decision jsonb,
        review_expires_at bigint,
        created_at bigint NOT NULL,
        UNIQUE (tenant_id, idempotency_key)
      );
      CREATE INDEX screening_requests_expiry ON screening_requests (review_expires_at) WHERE state = 'pending_review';

      CREATE SEQUENCE ledger_event_seq;
      CREATE TABLE ledger (
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        event_id text NOT NULL UNIQUE,
        request_id text NOT NULL,
        from_state text,
        to_state text NOT NULL,
        actor text NOT NULL,
        payload jsonb,
        created_at bigint NOT NULL,
        PRIMARY KEY (tenant_id, seq)
      );

      -- queued pipeline work (scoring after intake): leased, so a dead instance's work is taken over
      CREATE TABLE pipeline_jobs (
        request_id text PRIMARY KEY REFERENCES screening_requests (id) ON DELETE CASCADE,
        lease_owner text,
        lease_until bigint
      );

      -- the webhook outbox: one row per delivery, claimed FOR UPDATE SKIP LOCKED when due
      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        request_id text NOT NULL,
        event text NOT NULL,
        result jsonb NOT NULL,
        status text NOT NULL,
        failures integer NOT NULL DEFAULT 0,
        next_attempt_at bigint,
        lease_owner text,
        lease_until bigint,
        created_at bigint NOT NULL
      );
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');

      CREATE TABLE delivery_attempts (
        delivery_id text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        instance text NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );

      CREATE TABLE applications (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        record jsonb NOT NULL,
        created_at bigint NOT NULL
      );

      CREATE TABLE job_post_orders (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        record jsonb NOT NULL,
        created_at bigint NOT NULL
      );

      CREATE TABLE mail (id text PRIMARY KEY, recipient text NOT NULL, record jsonb NOT NULL, created_at bigint NOT NULL);

      CREATE TABLE draft_quota (tenant_id text NOT NULL, month bigint NOT NULL, used integer NOT NULL, PRIMARY KEY (tenant_id, month));

      -- fixed windows: per minute per key, per UTC day per client IP (anonymous MCP) or per key
      CREATE TABLE rate_windows (
        scope text NOT NULL,
        key text NOT NULL,
        window_start bigint NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (scope, key, window_start)
      );

      CREATE TABLE chaos_rules (id text PRIMARY KEY, rule jsonb NOT NULL, remaining integer, created_at bigint NOT NULL);
      CREATE TABLE planted_bugs (name text PRIMARY KEY);
    `,
  },
  {
    version: 2,
    name: 'the shared sandbox as a log of recorded steps (D-112)',
    sql: `
      -- every recorded step in the one order all instances apply them; seq is allocated under the
      -- log's advisory lock, so the committed steps are always a gapless prefix
      CREATE TABLE sandbox_log (
        seq bigint PRIMARY KEY,
        step jsonb NOT NULL,
        body bytea,
        committed_at timestamptz NOT NULL DEFAULT now()
      );
      -- the per-concept tables of version 1 were never written by a running sandbox: the log replaced them
      DROP TABLE planted_bugs, chaos_rules, rate_windows, draft_quota, mail, job_post_orders, applications,
        delivery_attempts, deliveries, pipeline_jobs, ledger, screening_requests, api_keys, tenants;
      DROP SEQUENCE ledger_event_seq;
    `,
  },
  {
    version: 3,
    name: 'steps kept as JSON text',
    sql: `
      -- nothing queries inside a step: text is stored as it comes, where jsonb is parsed and rebuilt on every insert
      ALTER TABLE sandbox_log ALTER COLUMN step TYPE text USING step::text;
    `,
  },
  {
    version: 4,
    name: 'snapshots of the shared sandbox, and who wrote each step (D-138)',
    sql: `
      -- the state as of step seq, so a start replays only the steps after it; the two newest are kept,
      -- and every step after the older one (steps and snapshots before it are pruned)
      CREATE TABLE sandbox_snapshots (
        seq bigint PRIMARY KEY,
        log_format integer NOT NULL,
        snapshot_format integer NOT NULL,
        code_version text NOT NULL,
        -- the state as gzip-compressed JSON, and its size before compression
        state bytea NOT NULL,
        raw_bytes bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- null on steps written before steps carried their version
      ALTER TABLE sandbox_log ADD COLUMN log_format integer, ADD COLUMN code_version text;
    `,
  },
  {
    version: 5,
    name: 'webhook listener leases and console sign-outs (D-140, D-141)',
    sql: `
      -- the instance holding each connected listener's stream renews its lease; a listener whose lease ran
      -- out (its instance died) is dropped by a recorded step. Presence itself lives in the log.
      CREATE TABLE sandbox_listener_leases (
        listener_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        instance text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sandbox_listener_leases_instance ON sandbox_listener_leases (instance);
      -- console sessions are signed cookies valid on every instance; a sign-out is kept here (by a digest
      -- of the session id) until the session would have expired anyway
      CREATE TABLE console_sign_outs (session_digest text PRIMARY KEY, until_at timestamptz NOT NULL);
    `,
  },
  {
    version: 6,
    name: 'how far each instance applied the log, so pruning never outruns a live one (D-138)',
    sql: `
      CREATE TABLE sandbox_instances (
        instance text PRIMARY KEY,
        applied_seq bigint NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 7,
    name: 'snapshots stored by part: one row per tenant and one for the rest (D-146)',
    sql: `
      -- a snapshot's parts: 'global' (what belongs to no tenant, and the recorder's counters) and one per
      -- tenant (its slice), each gzip-compressed JSON; keyed by part first, so the table can be distributed
      -- by it. ord is the order a start imports them in (0: global, then the tenants in their order).
      CREATE TABLE sandbox_snapshot_parts (
        part text NOT NULL,
        seq bigint NOT NULL,
        ord integer NOT NULL,
        data bytea NOT NULL,
        raw_bytes bigint NOT NULL,
        PRIMARY KEY (part, seq)
      );
      CREATE INDEX sandbox_snapshot_parts_order ON sandbox_snapshot_parts (seq, ord);
      -- already compressed: stored as it comes
      ALTER TABLE sandbox_snapshot_parts ALTER COLUMN data SET STORAGE EXTERNAL;
      -- a snapshot's row is its header, written in the transaction of its parts, after them: with parts (their
      -- count and compressed size), or a whole state in state (written before this version; still read)
      ALTER TABLE sandbox_snapshots ALTER COLUMN state DROP NOT NULL, ADD COLUMN parts integer, ADD COLUMN bytes bigint;
    `,
  },
  {
    version: 8,
    name: 'the partition of every step, and the directory routing reads (tenants resident on demand)',
    sql: `
      -- the partition a step belongs to (route.ts): a tenant's id, or 'global', 'create' or 'all'; null on steps
      -- written before steps carried it
      ALTER TABLE sandbox_log ADD COLUMN partition text;
      -- what routing needs of tenants that are not in memory (directory.ts): 'tenant' (the tenant's own id), 'key'
      -- (an API key's hash), 'email' (a dashboard account's), 'session' (a dashboard session's id), each with its
      -- tenant; written in the transaction of the step that changed it. A small global table.
      CREATE TABLE sandbox_directory (
        kind text NOT NULL,
        name text NOT NULL,
        tenant_id text NOT NULL,
        PRIMARY KEY (kind, name)
      );
      CREATE INDEX sandbox_directory_tenant ON sandbox_directory (tenant_id);
    `,
  },
  {
    version: 9,
    name: 'the stored state of each tenant not held in memory (tenants resident on demand)',
    sql: `
      -- a tenant's slice (gzip-compressed JSON, as a snapshot's part) as of step seq, written by an instance that
      -- dropped the tenant from memory, or copied from a snapshot's part by a start that did not load it; an
      -- instance loading the tenant reads the newest row at or before the step it has applied. Keyed by tenant
      -- first, so the table can be distributed by it.
      CREATE TABLE sandbox_tenant_states (
        tenant_id text NOT NULL,
        seq bigint NOT NULL,
        data bytea NOT NULL,
        raw_bytes bigint NOT NULL,
        snapshot_format integer NOT NULL,
        code_version text NOT NULL,
        PRIMARY KEY (tenant_id, seq)
      );
      ALTER TABLE sandbox_tenant_states ALTER COLUMN data SET STORAGE EXTERNAL;
    `,
  },
  {
    version: 10,
    name: 'the log keyed by partition first, so every large table can be distributed by tenant',
    sql: `
      -- a step without a partition (written before steps carried one) was read as 'all': it is now written so
      UPDATE sandbox_log SET partition = 'all' WHERE partition IS NULL;
      ALTER TABLE sandbox_log ALTER COLUMN partition SET DEFAULT 'all', ALTER COLUMN partition SET NOT NULL;
      -- seq stays unique by construction (allocated under the log's advisory lock); its index serves the reads in
      -- log order. A distributed engine requires the distribution column in every unique key.
      ALTER TABLE sandbox_log DROP CONSTRAINT sandbox_log_pkey;
      ALTER TABLE sandbox_log ADD PRIMARY KEY (partition, seq);
      CREATE INDEX sandbox_log_seq ON sandbox_log (seq);
    `,
  },
  {
    version: 11,
    name: 'a snapshot keeps the log from the first step its instance skipped',
    sql: `
      -- the first step of a tenant its instance skipped and no stored state covers (D-172): a start from it applies
      -- those steps when it loads the tenant, so pruning keeps them; null: none
      ALTER TABLE sandbox_snapshots ADD COLUMN log_from bigint;
    `,
  },
];
