// A shared sandbox rebuilds its state by replaying the log of recorded calls (D-112), which holds for each
// call the sandbox time it ran at and the random bytes it drew. Replay gives the same state only while the
// code a call runs takes time from the clock (src/domain/clock.ts) and randomness from the recorded entropy
// (src/domain/rng.ts). This check fails when any other source file reads the wall clock or draws its own
// randomness, unless it is one of the few places below that run outside a replayed call.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

// Reads of the wall clock and draws of randomness not taken from the recorded entropy.
const UNRECORDED =
  /\bDate\.now\s*\(|\bnew Date\s*\(\s*\)|(?<![\w.])Date\s*\(\s*\)|\bMath\.random\s*\(|\brandom(Bytes|UUID|Int|Fill|FillSync)\s*\(|\bgetRandomValues\s*\(/;

/** The only files allowed to, and why each runs outside a replayed call or is what replay substitutes. */
const ALLOWED: Record<string, string> = {
  'domain/clock.ts': 'the clock: its real-time source is what a shared sandbox replaces by the recorded time',
  'domain/rng.ts': 'the entropy source: a shared sandbox records what it draws and replays the tape',
  'domain/screening/cursor.ts': 'a default secret only; every store passes the cursor secret it keeps',
  'sandbox/console/session.ts': 'console browser sessions are per instance, never part of the replicated state',
  'sandbox/control/listen.ts':
    'webhook listener streams: a listener id is drawn before it is recorded; on one process the hub times attempts out on the wall clock, a shared sandbox passes it the recorded time (D-119)',
  'listen/cli.ts': 'the listen command: a client of the sandbox in its own process, never replayed',
  'store/memory.ts': 'the cursor secret, drawn once when the store opens, before any call',
  'replication/index.ts': 'the shared cursor secret and start instant, stored once for every instance',
  'replication/listeners.ts':
    "webhook listeners of a shared sandbox: the instance's lease name, and the sweep that records lapsed leases and timeouts as steps (D-140)",
  'replication/replica.ts': 'the recorder: it draws the time and bytes a call gets, and records them',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : /\.ts$/.test(e.name) && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** A file's code without its comments (a header may well say "nothing reads Date.now()"). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('replayed code takes time only from the clock and randomness only from the recorded entropy', () => {
  it('no source file reads the wall clock or draws randomness, but the allowed ones', () => {
    const readers = sources(SRC)
      .filter((f) => UNRECORDED.test(code(readFileSync(f, 'utf8'))))
      .map((f) => relative(SRC, f).split('\\').join('/'))
      .sort();
    const unexpected = readers.filter((f) => !(f in ALLOWED));
    expect(
      unexpected,
      'read the wall clock or unrecorded randomness: use core.clock / the rng, or say here why the file runs outside replay',
    ).toEqual([]);
    // an allowance no longer needed goes too, so the list stays the truth
    expect(readers).toEqual(Object.keys(ALLOWED).sort());
  });
});
