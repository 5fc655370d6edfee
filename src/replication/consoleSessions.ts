// The console's sign-outs on a shared sandbox (D-141): a console session is a signed cookie every instance
// accepts, so a sign-out must be seen by every instance; it is kept in `console_sign_outs` (by a digest of
// the session id) until the session would have expired anyway. Not part of the log: console sessions are
// the operator's browser sessions, not sandbox state (a reset does not sign the operator out).
// Requirements: none; decisions D-141.

import type { Core } from '../domain/core.js';
import { signOutKey, useConsoleSignOuts } from '../sandbox/console/session.js';
import type { Db } from '../store/postgres/pool.js';

export function shareConsoleSignOuts(db: Db, core: Core): void {
  useConsoleSignOuts(core, {
    async add(sessionId, untilMs) {
      await db.query('DELETE FROM console_sign_outs WHERE until_at < now()');
      await db.query(
        `INSERT INTO console_sign_outs (session_digest, until_at) VALUES ($1, to_timestamp($2 / 1000.0))
         ON CONFLICT (session_digest) DO UPDATE SET until_at = excluded.until_at`,
        [signOutKey(sessionId), untilMs],
      );
    },
    async has(sessionId) {
      const { rowCount } = await db.query(
        'SELECT 1 FROM console_sign_outs WHERE session_digest = $1 AND until_at >= now()',
        [signOutKey(sessionId)],
      );
      return (rowCount ?? 0) > 0;
    },
  });
}
