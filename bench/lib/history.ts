// Databases of a shared sandbox holding many tenants' histories, for the `tenants` section.
//
// Every tenant is created through the control API (its key comes from there). One tenant (the template)
// then makes its whole history through HTTP: keyed searches and a few submits. The other tenants get
// the same history in one of two ways:
// - `sql`: when the database holds D-112's log (`sandbox_log (seq, step, body, …)`, every step a
//   recorded call whose key sits in its authorization header) and nothing else of a tenant's, the
//   template's recorded steps are copied once per tenant in SQL (the instance stopped), the key replaced
//   by that tenant's, interleaved round by round across the tenants (round i of every tenant, then
//   round i+1), renumbered so the log stays gapless and its times never go backwards; any other column
//   of a step (its format, its version) is copied as written, and snapshots of the renumbered span are
//   removed. Ids are counters (not recorded bytes) and searches and submits draw no secret, so a copy
//   replays as that tenant's own calls; `verifyHistory` proves it on the restarted instance.
// - `http`: any other storage (a later log format) gets every tenant's history through HTTP, many
//   tenants at once: slower, but it needs nothing of the storage.

import pg from 'pg';
import { clientFor, expectStatus, pool, type Client } from './http.js';
import { submitBody, type SandboxChild } from './sandbox.js';

/** What seeding needs of the instance: its address and its admin client. */
export type Seeder = Pick<SandboxChild, 'baseUrl' | 'admin'>;

export interface HistoryTenant {
  tenantId: string;
  apiKey: string;
}

export interface History {
  tenants: HistoryTenant[];
  /** Recorded calls of each tenant's history (the creation not counted). */
  callsPerTenant: number;
  submitsPerTenant: number;
  /** Rows of the log (or recorded calls) after seeding, every tenant's creation included. */
  calls: number;
  method: 'sql' | 'http';
  /** Seconds creating the tenants through the control API. */
  createS: number;
  /** Seconds making the template's history through HTTP. */
  templateS: number;
  /** Seconds copying the history to the other tenants (SQL or HTTP). */
  copyS: number;
}

/** Longer than this, seeding through HTTP is refused (the part is not measured, saying why). */
const HTTP_SEED_LIMIT_S = 600;

const WORDS = ['engineer', 'remote', 'senior', 'data', 'design', 'backend', 'product', 'manager'];

/** The i-th call of a tenant's history: a submit every `every` calls, else a keyed search. */
function historyCall(i: number, every: number): { method: 'GET' | 'POST'; path: string; body?: string } {
  if (i % every === every - 1) return { method: 'POST', path: '/api/screening/v1/screen', body: submitBody('history') };
  const q = WORDS[i % WORDS.length];
  const page = Math.floor(i / WORDS.length) % 3;
  return { method: 'GET', path: `/api/v1/jobs?q=${q}${page ? `&offset=${page * 20}` : ''}` };
}

/** Makes one tenant's history through HTTP, `concurrency` calls at a time; throws on any non-2xx. */
async function makeHistory(api: Client, calls: number, every: number, concurrency: number): Promise<void> {
  await pool(Array.from({ length: calls }), concurrency, async (_, i) => {
    const c = historyCall(i, every);
    expectStatus(await api(c.method, c.path, c.body, 30_000), [200, 201], `history call ${c.method} ${c.path}`);
  });
}

/** Tenants on the scale plan (2,000 screening credits: every history's submits are paid), created through the control API. */
export async function createTenants(sb: Seeder, count: number, concurrency = 16): Promise<HistoryTenant[]> {
  return pool(Array.from({ length: count }), concurrency, async (_, i) => {
    const res = expectStatus(
      await sb.admin('POST', '/sandbox/v1/tenants', { planTier: 'scale', name: `history ${i}` }, 30_000),
      201,
      'create tenant',
    ).json as { tenantId: string; apiKey: string };
    return { tenantId: res.tenantId, apiKey: res.apiKey };
  });
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Tables a database may hold for the SQL copy to be complete: the log is the only state per tenant. */
/**
 * The tables the copy knows: the log, its meta and snapshots, and three that hold no tenant's state (how far each
 * instance applied the log, listeners' leases, console sign-outs: liveness and sessions only).
 */
const KNOWN_TABLES = [
  'sandbox_log',
  'sandbox_meta',
  'sandbox_snapshots',
  'sandbox_snapshot_parts',
  'schema_migrations',
  'sandbox_instances',
  'sandbox_listener_leases',
  'console_sign_outs',
  // the routing directory (D-145): every tenant's keys are in it already (the copy makes no key)
  'sandbox_directory',
  // tenants' stored states (D-150): those written before the copy's first step stay exact (the copy adds only later
  // steps); later ones are deleted with the snapshots
  'sandbox_tenant_states',
];

/**
 * The columns of D-112's log to copy with each step (besides `seq` and `step`), or null when the
 * database holds state the SQL copy does not know (then every tenant's history goes through HTTP).
 */
async function logColumns(db: pg.Client): Promise<string[] | null> {
  const { rows } = await db.query<{ column_name: string; column_default: string | null }>(
    `SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'sandbox_log'`,
  );
  const cols = rows.map((r) => r.column_name);
  if (!cols.includes('seq') || !cols.includes('step') || !cols.includes('body')) return null;
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  // a table the copy does not know may hold a tenant's state, unless it holds nothing at all
  for (const { table_name } of tables.filter((t) => !KNOWN_TABLES.includes(t.table_name))) {
    const { rows: any } = await db.query(`SELECT 1 FROM ${quoted(table_name)} LIMIT 1`);
    if (any.length) return null;
  }
  // the commit time takes its default again; any other column (a step's format, version, partition) is copied
  return rows
    .filter(
      (r) =>
        !['seq', 'step'].includes(r.column_name) && (r.column_default === null || r.column_name !== 'committed_at'),
    )
    .map((r) => r.column_name);
}

/**
 * Copies the template's steps after `after` to every tenant in SQL, with the instance that wrote them
 * stopped; returns the log's row count. Snapshots taken after `after` (of the template's history, or
 * on the clean shutdown) describe a numbering the copy changes: they are removed, so a start replays
 * the copied steps.
 */
async function copyInSql(
  db: pg.Client,
  columns: string[],
  after: number,
  template: HistoryTenant,
  others: HistoryTenant[],
): Promise<number> {
  const extra = columns.map((c) => `, ${quoted(c)}`).join('');
  // a copied step is the copy's tenant's: its partition (D-145) too
  const extraOf = (alias: string) =>
    columns
      .map((c) =>
        c === 'partition'
          ? `, CASE WHEN ${alias}.mine THEN k.tenant ELSE ${alias}.partition END`
          : `, ${alias}.${quoted(c)}`,
      )
      .join('');
  await db.query('BEGIN');
  try {
    const { rows: span } = await db.query<{ first: string | null; n: string }>(
      `SELECT min(seq) AS first, count(*) AS n FROM sandbox_log WHERE seq > $1`,
      [after],
    );
    if (Number(span[0].first) !== after + 1)
      throw new Error(`the template's steps do not follow step ${after} (pruned?): the SQL copy cannot renumber them`);
    await db.query(
      `CREATE TEMP TABLE history_template ON COMMIT DROP AS
       SELECT row_number() OVER (ORDER BY seq) AS r, step${extra}, position($2 IN step) > 0 AS mine
       FROM sandbox_log WHERE seq > $1`,
      [after, template.apiKey],
    );
    const { rows } = await db.query<{ mine: string }>(
      `SELECT count(*) FILTER (WHERE mine) AS mine FROM history_template`,
    );
    if (Number(rows[0].mine) === 0) throw new Error('the template history holds no step with the template key');
    await db.query(
      `CREATE TEMP TABLE history_keys ON COMMIT DROP AS
       SELECT k.t - 1 AS t, k.key, i.tenant FROM unnest($1::text[]) WITH ORDINALITY AS k(key, t)
       JOIN unnest($2::text[]) WITH ORDINALITY AS i(tenant, t) ON i.t = k.t`,
      [
        [template.apiKey, ...others.map((o) => o.apiKey)],
        [template.tenantId, ...others.map((o) => o.tenantId)],
      ],
    );
    await db.query(`DELETE FROM sandbox_log WHERE seq > $1`, [after]);
    const snapshots = await db.query(`SELECT to_regclass('sandbox_snapshots') IS NOT NULL AS has`);
    if (snapshots.rows[0].has) await db.query(`DELETE FROM sandbox_snapshots WHERE seq > $1`, [after]);
    // their parts too (D-146), where snapshots are stored by part
    const parts = await db.query(`SELECT to_regclass('sandbox_snapshot_parts') IS NOT NULL AS has`);
    if (parts.rows[0].has) await db.query(`DELETE FROM sandbox_snapshot_parts WHERE seq > $1`, [after]);
    // and the tenants' stored states written after it (D-150): a state as of a step the copy renumbers
    const states = await db.query(`SELECT to_regclass('sandbox_tenant_states') IS NOT NULL AS has`);
    if (states.rows[0].has) await db.query(`DELETE FROM sandbox_tenant_states WHERE seq > $1`, [after]);
    // round by round across the tenants; steps not of the template (timers) kept once, in place
    await db.query(
      `INSERT INTO sandbox_log (seq, step${extra})
       SELECT $1 + row_number() OVER (ORDER BY h.r, k.t),
              CASE WHEN h.mine THEN replace(h.step, $2, k.key) ELSE h.step END${extraOf('h')}
       FROM history_template h JOIN history_keys k ON h.mine OR k.t = 0`,
      [after, template.apiKey],
    );
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => {});
    throw err;
  }
  await db.query('VACUUM ANALYZE sandbox_log');
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM sandbox_log`);
  return Number(rows[0].n);
}

/**
 * Fills the database behind `sb` (one instance serving `dbUrl`) with `tenants` tenants, each with
 * `callsPerTenant` recorded calls (a submit every hundredth, at least one), and stops the instance
 * with `stop` (before the SQL copy, so nothing it writes on its way out describes the old numbering).
 */
export async function seedHistories(
  sb: Seeder,
  dbUrl: string,
  stop: () => Promise<void>,
  { tenants, callsPerTenant }: { tenants: number; callsPerTenant: number },
  log: (m: string) => void,
): Promise<History> {
  const every = Math.max(2, Math.min(100, callsPerTenant));
  const submitsPerTenant = Math.floor(callsPerTenant / every);
  let t0 = performance.now();
  const all = await createTenants(sb, tenants);
  const createS = (performance.now() - t0) / 1000;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const columns = await logColumns(db);
    const after = columns
      ? Number((await db.query<{ m: string }>(`SELECT max(seq) AS m FROM sandbox_log`)).rows[0].m)
      : 0;
    t0 = performance.now();
    const [template, ...others] = all;
    await makeHistory(clientFor(sb.baseUrl, template.apiKey), callsPerTenant, every, 8);
    const templateS = (performance.now() - t0) / 1000;
    t0 = performance.now();
    let calls: number;
    if (columns) {
      await stop();
      calls = await copyInSql(db, columns, after, template, others);
    } else {
      // 32 tenants at a time serve about as many calls a second as the template's 8 at a time did, or more
      const estimateS = (others.length * callsPerTenant) / (callsPerTenant / Math.max(templateS, 0.001));
      if (estimateS > HTTP_SEED_LIMIT_S)
        throw new Error(
          `this storage is seeded through HTTP, and ${others.length} more tenants × ${callsPerTenant} calls would take about ${Math.round(estimateS)} s (the template's ${callsPerTenant} calls took ${templateS.toFixed(1)} s): pass smaller --history-calls / --memory-tenants`,
        );
      await pool(others, 32, (t) => makeHistory(clientFor(sb.baseUrl, t.apiKey), callsPerTenant, every, 1));
      await stop();
      calls = tenants * (callsPerTenant + 1);
    }
    const copyS = (performance.now() - t0) / 1000;
    log(
      `  seeded ${tenants} tenants × ${callsPerTenant} calls (${columns ? 'copied in SQL' : 'through HTTP'}): create ${createS.toFixed(1)} s, template ${templateS.toFixed(1)} s, copy ${copyS.toFixed(1)} s`,
    );
    return {
      tenants: all,
      callsPerTenant,
      submitsPerTenant,
      calls,
      method: columns ? 'sql' : 'http',
      createS,
      templateS,
      copyS,
    };
  } finally {
    await db.end();
  }
}

/**
 * Proof that a seeded history replays: the tenant's wallet shows every submit of its history paid,
 * under its own tenant id, and its audit ledger holds its requests. Throws, saying what differs.
 */
export async function verifyHistory(baseUrl: string, h: History, tenant: HistoryTenant): Promise<string> {
  const api = clientFor(baseUrl, tenant.apiKey);
  const usage = expectStatus(await api('GET', '/api/screening/v1/usage'), 200, 'usage of a seeded tenant').json as {
    tenantId: string;
    creditsRemaining: number;
    creditsCap: number;
  };
  if (usage.tenantId !== tenant.tenantId)
    throw new Error(`the seeded key answers as tenant ${usage.tenantId}, not ${tenant.tenantId}`);
  const spent = usage.creditsCap - usage.creditsRemaining;
  if (spent !== h.submitsPerTenant)
    throw new Error(
      `a seeded tenant spent ${spent} credits after the restart, not its history's ${h.submitsPerTenant} submits`,
    );
  const audit = expectStatus(await api('GET', '/api/screening/v1/audit?limit=500'), 200, 'audit of a seeded tenant')
    .json as { events: { requestId: string }[] };
  const requests = new Set(audit.events.map((e) => e.requestId)).size;
  if (h.submitsPerTenant > 0 && requests === 0)
    throw new Error('a seeded tenant has no audit events after the restart');
  return `tenant ${tenant.tenantId}: ${spent} credits spent by its ${h.submitsPerTenant} submits, ${audit.events.length} audit events over ${requests} requests`;
}
