// What a shared sandbox's log and snapshots were written by (D-138): the log format (the shape of a
// recorded step) and the sandbox's code version (package.json's version: what replaying a step does).
// A step is replayed only by the code version that ran it; a snapshot is state, read by any version
// that knows its format. Anything else refuses to start, naming both sides and the way forward.
// Requirements: none of its own; decisions D-138, D-112.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shape of a recorded step (steps.ts); raised when a step's fields change meaning. */
export const LOG_FORMAT = 3;

/** Who wrote a step or a snapshot. */
export interface Writer {
  logFormat: number;
  codeVersion: string;
}

/** The version in the sandbox's package.json, found from this file in a checkout and in the built package. */
function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'remote-jobs-sandbox' && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

export const CODE_VERSION = packageVersion();

export const describeWriter = (w: Writer) => `log format ${w.logFormat} / sandbox ${w.codeVersion}`;

/** Steps written before versions were recorded (an older sandbox's log): known to be another version. */
export const UNRECORDED: Writer = {
  logFormat: 1,
  codeVersion: 'unrecorded (written before steps carried their version)',
};

export const sameWriter = (a: Writer, b: Writer) => a.logFormat === b.logFormat && a.codeVersion === b.codeVersion;

/** The refusal of a database whose steps this instance would replay into another state. */
export function refuseSteps(theirs: Writer[], mine: Writer): Error {
  return new Error(
    `this database holds steps written by ${theirs.map(describeWriter).join(', ')}; this instance is ${describeWriter(mine)} ` +
      `and replays only steps its own version wrote, so it will not start: run the version that wrote them until ` +
      `every instance of it has stopped cleanly (a clean stop writes a snapshot covering every step, which this ` +
      `version can load), or start this version on a new database`,
  );
}

/** The refusal of a database whose snapshots this instance cannot read and whose log no longer starts at step 1. */
export function refuseSnapshot(
  theirs: Writer & { snapshotFormat: number },
  mine: Writer & { snapshotFormat: number },
): Error {
  return new Error(
    `this database's snapshot was written by ${describeWriter(theirs)} in snapshot format ${theirs.snapshotFormat}; this ` +
      `instance is ${describeWriter(mine)} and reads snapshot format ${mine.snapshotFormat}, and the steps before that ` +
      `snapshot were pruned, so it will not start: run the version that wrote it, or start this version on a new database`,
  );
}
