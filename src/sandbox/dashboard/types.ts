// Hono environment of the dashboard's routes: the app's variables plus the signed-in account and its
// session (set by the dashboard's own guard).

import type { Account, DashboardSession } from '../../domain/accounts.js';
import type { AppEnv } from '../../web/env.js';

export type DashboardEnv = {
  Variables: AppEnv['Variables'] & {
    account: Account;
    session: DashboardSession;
  };
};
