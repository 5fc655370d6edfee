// The shared store (D-112): the in-memory holders on every instance, kept identical by the log of
// recorded steps in PostgreSQL (replica.ts). Opening it migrates the database, takes the values every
// instance must share from `sandbox_meta` (created by whichever instance comes first), refuses an
// instance whose settings would make it diverge from the others, and replays the log.
// Requirements: none of its own; decisions D-112, D-113, D-21.

import { createHash, randomBytes } from 'node:crypto';
import { firstSeqAt } from '../domain/screening/ledger.js';
import { secureToken } from '../domain/rng.js';
import type { Settings } from '../domain/settings.js';
import type { OpenStore } from '../domain/store.js';
import { openMemoryStore } from '../store/memory.js';
import { migrate } from '../store/postgres/migrate.js';
import { openPool, type Db } from '../store/postgres/pool.js';
import { Replica } from './replica.js';

/** The settings that decide what a call does: every instance on one database must agree on them. */
function sharedSettings(config: Readonly<Settings>): Record<string, unknown> {
  return {
    seed: config.seed,
    corpusSize: config.corpusSize,
    seedDemo: config.seedDemo,
    noRateLimits: config.noRateLimits,
    bugs: [...config.bugs].sort(),
    publicUrl: config.publicUrl,
    appUrl: config.appUrl,
    adminTokenSha256: createHash('sha256').update(config.adminToken).digest('hex'),
  };
}

export interface SharedSandbox {
  replica: Replica;
  /** The admin token every instance uses: the operator's, or the one the first instance generated. */
  adminToken: string;
  openStore: OpenStore;
}

async function shared(db: Db, key: string, make: () => string): Promise<string> {
  await db.query(`INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, make()]);
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM sandbox_meta WHERE key = $1`, [key]);
  return rows[0].value;
}

/**
 * Connects to the database at `url` and prepares the shared store. `config` is this instance's
 * settings; when its admin token was generated, the one stored by the first instance is adopted.
 */
export async function openShared(
  url: string,
  config: Readonly<Settings>,
  onFatal?: (err: Error) => void,
): Promise<SharedSandbox> {
  const db = openPool(url);
  try {
    await migrate(db);
    const adminToken = config.adminTokenGenerated
      ? await shared(db, 'generated_admin_token', () => `sat_${secureToken(32)}`)
      : config.adminToken;
    const mine = sharedSettings({ ...config, adminToken });
    const theirs = JSON.parse(await shared(db, 'settings', () => JSON.stringify(mine))) as Record<string, unknown>;
    const differ = Object.keys(mine).filter((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k]));
    if (differ.length) {
      throw new Error(
        `this database holds a sandbox started with other settings (${differ.join(', ')}); every instance of one shared sandbox needs the same seed, corpus, demo, rate-limit, planted-bug, public URL and SANDBOX_ADMIN_TOKEN settings`,
      );
    }
    const epoch = await shared(db, 'id_epoch', () => secureToken(6));
    const cursorSecret = Buffer.from(
      await shared(db, 'cursor_secret', () => randomBytes(32).toString('base64')),
      'base64',
    );
    const startedAt = Number(await shared(db, 'started_at', () => String(Date.now())));
    const replica = new Replica(db, config.seed, startedAt, onFatal);
    const openStore: OpenStore = (deps) => {
      deps.ids.share(epoch, replica.entropy);
      const store = openMemoryStore(deps, {
        kind: 'postgres',
        realNow: replica.now,
        cursorSecret,
        ledgerFirstSeq: firstSeqAt(startedAt),
        sendWebhook: replica.sendWebhook,
        close: async () => {
          await replica.close();
          await db.end();
        },
      });
      store.clock.dispatchDueTo(replica.fireTimersWith(() => store.clock.fireDueNow()));
      store.clock.deferWith(replica.defer);
      return store;
    };
    return { replica, adminToken, openStore };
  } catch (err) {
    await db.end().catch(() => {});
    throw err;
  }
}
