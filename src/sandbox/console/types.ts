// Hono environment of the console's routes: the app's variables plus the signed-in session and
// the in-process control API client.

import type { AppEnv } from '../../web/env.js';
import type { ControlClient } from './control.js';
import type { Session } from './session.js';

/**
 * JSON the control API answered, as the console renders it: read untyped (every value is escaped when
 * rendered, and a missing field renders as absent), so a page never breaks on a field it does not know.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: rendered JSON of the control API
export type Wire = any;

export type ConsoleEnv = {
  Variables: AppEnv['Variables'] & {
    session: Session;
    ctl: ControlClient;
  };
};
