// Secrets (API keys, webhook secrets, session ids) drawn from a numbered stream instead of crypto, so two
// cores that draw the same number of bytes hand out the same secrets; a twin starts where its original stands.

import { createHash } from 'node:crypto';

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
