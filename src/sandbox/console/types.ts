// Hono environment of the console's routes: the app's variables plus the signed-in session and
// the in-process control API client.

import type { AppEnv } from '../../web/env.js';
import type { ControlClient } from './control.js';
import type { Session } from './session.js';

export type ConsoleEnv = {
  Variables: AppEnv['Variables'] & {
    session: Session;
    ctl: ControlClient;
  };
};
