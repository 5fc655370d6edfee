// Job specs as requests keep them. Many candidates are screened against the same job spec, so each
// distinct spec (by its JSON text) is kept once, with its scorer compilation made on first
// use; a bounded table of recent specs finds the shared copy. Every reader gets its own parsed copy.
// Requirements: none of its own (storage of SCR-SUBMIT-7 job specs); decisions D-42.

import { flatten } from './flatten.js';
import { RecentTable } from './recentTable.js';
import { type CompiledJob, compileJob } from './scorer.js';
import type { JobSpec } from './types.js';

export class StoredJobSpec {
  private compiledJob: CompiledJob | null = null;

  constructor(
    /** JSON.stringify of the spec as submitted. */
    readonly json: string,
  ) {}

  /** A fresh copy: callers may keep or change it. */
  spec(): JobSpec {
    return JSON.parse(this.json) as JobSpec;
  }

  compiled(spec: JobSpec = this.spec()): CompiledJob {
    return (this.compiledJob ??= compileJob(spec));
  }
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/** Equal job specs: the same fields with the same values, whatever their order. */
const sameSpec = (a: JobSpec, b: JobSpec) =>
  a.title === b.title &&
  a.description === b.description &&
  a.salaryBandMinIdr === b.salaryBandMinIdr &&
  a.salaryBandMaxIdr === b.salaryBandMaxIdr &&
  sameList(a.mustHaves, b.mustHaves) &&
  sameList(a.niceToHaves, b.niceToHaves) &&
  Object.keys(a).length === Object.keys(b).length;

export class JobSpecTable {
  private recent = new RecentTable<StoredJobSpec>();
  // screenings come in runs against one job: the last spec is recognised without serialising it
  private last: { spec: JobSpec; stored: StoredJobSpec } | null = null;

  /** The stored form of `spec`, shared with earlier requests that sent the same spec. */
  intern(spec: JobSpec): StoredJobSpec {
    if (this.last && sameSpec(spec, this.last.spec)) return this.last.stored;
    const stored = this.lookup(spec);
    this.last = { spec: stored.spec(), stored };
    return stored;
  }

  private lookup(spec: JobSpec): StoredJobSpec {
    return this.recent.get(JSON.stringify(spec), (json) => new StoredJobSpec(flatten(json)));
  }

  reset(): void {
    this.recent.reset();
    this.last = null;
  }
}
