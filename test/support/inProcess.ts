// What tests of cores run in process share. Secrets (API keys, webhook secrets, session ids) drawn from a numbered stream instead of crypto, so two
// cores that draw the same number of bytes hand out the same secrets; a twin starts where its original stands.

import { createHash } from 'node:crypto';
import type { Core } from '../../src/domain/core.js';

export class Entropy {
  drawn = 0;
  readonly draw = (length: number): Uint8Array => {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i += 32)
      createHash('sha256')
        .update(`entropy ${this.drawn++}`)
        .digest()
        .copy(out, i, 0, Math.min(32, length - i));
    return out;
  };
}

/** Lets deferred work, timers due now and webhook attempts in flight finish. */
export async function quiesce(core: Core): Promise<void> {
  for (let calm = 0; calm < 3;) {
    await new Promise((r) => setTimeout(r, 0));
    if (core.webhooks.list().some((d) => d.inFlight)) {
      calm = 0;
      await new Promise((r) => setTimeout(r, 2));
    } else calm++;
  }
}
