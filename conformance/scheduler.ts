// Runs checks side by side. Two checks conflict when they share a resource (a fixed key of the
// profile, the target clock, this IP's anonymous day) or when either is exclusive (it moves the target
// clock, or nothing is known about what it touches). A check starts when a slot is free (the
// concurrency bound), no conflicting check is running, and every conflicting check before it in the
// registry has finished, so checks sharing a key keep the registry's order and `late` checks still
// come after the ones they would disturb. A check that waits for the target (asyncWait) lends its
// resources meanwhile: a conflicting check behind it may run, and the waiting check takes them back
// (after that one finishes or waits in turn) before it goes on. Late and exclusive checks never lend
// theirs and start only once every conflicting check before them has finished.

export interface Job {
  /** Registry position: the order among conflicting jobs. */
  index: number;
  resources: ReadonlySet<string>;
  /** Conflicts with every other job. */
  exclusive: boolean;
  /** Starts only after every earlier conflicting job finished, and never lends its resources. */
  strict: boolean;
}

type State = 'pending' | 'running' | 'waiting' | 'resuming' | 'done';

export const conflicts = (a: Job, b: Job): boolean =>
  a.exclusive || b.exclusive || [...a.resources].some((r) => b.resources.has(r));

export class Scheduler<J extends Job> {
  private readonly state = new Map<J, State>();
  private readonly depth = new Map<J, number>();
  private readonly resume = new Map<J, () => void>();

  constructor(
    private readonly jobs: readonly J[],
    private readonly concurrency: number,
  ) {
    for (const j of jobs) this.state.set(j, 'pending');
  }

  private holding(j: J): boolean {
    const s = this.state.get(j);
    return s === 'running' || (s === 'waiting' && !this.lends(j));
  }

  private lends(j: J): boolean {
    return !j.strict && !j.exclusive;
  }

  private active(): number {
    let n = 0;
    for (const s of this.state.values()) if (s === 'running' || s === 'waiting' || s === 'resuming') n++;
    return n;
  }

  private blockedByHolder(j: J): boolean {
    for (const o of this.jobs) if (o !== j && this.holding(o) && conflicts(o, j)) return true;
    return false;
  }

  private canStart(j: J): boolean {
    if (this.blockedByHolder(j)) return false;
    for (const o of this.jobs) {
      if (o.index >= j.index || !conflicts(o, j)) continue;
      const s = this.state.get(o)!;
      if (s === 'done') continue;
      if (s === 'waiting' && !j.strict && this.lends(o)) continue;
      return false;
    }
    return true;
  }

  /** Grants what can be granted: resumptions first (registry order), then new starts. */
  private pump(start: (j: J) => void): void {
    for (const j of this.jobs) {
      if (this.state.get(j) === 'resuming' && !this.blockedByHolder(j)) {
        this.state.set(j, 'running');
        const r = this.resume.get(j)!;
        this.resume.delete(j);
        r();
      }
    }
    for (const j of this.jobs) {
      if (this.active() >= this.concurrency) break;
      if (this.state.get(j) === 'pending' && this.canStart(j)) {
        this.state.set(j, 'running');
        start(j);
      }
    }
  }

  /**
   * Runs every job; `run` receives the job and its `whileWaiting`, which lends the job's resources
   * during a wait. Resolves when all have finished (a job's own errors are its runner's to catch).
   */
  async runAll(run: (j: J, whileWaiting: <T>(fn: () => Promise<T>) => Promise<T>) => Promise<void>): Promise<void> {
    let finished = 0;
    const all = this.jobs.length;
    await new Promise<void>((resolve) => {
      if (all === 0) return resolve();
      const start = (j: J) => {
        const whileWaiting = <T>(fn: () => Promise<T>) => this.whileWaiting(j, fn, pump);
        void Promise.resolve()
          .then(() => run(j, whileWaiting))
          .catch(() => {})
          .finally(() => {
            this.state.set(j, 'done');
            finished++;
            if (finished === all) resolve();
            else pump();
          });
      };
      const pump = () => this.pump(start);
      pump();
    });
  }

  private async whileWaiting<T>(j: J, fn: () => Promise<T>, pump: () => void): Promise<T> {
    const d = (this.depth.get(j) ?? 0) + 1;
    this.depth.set(j, d);
    if (d === 1 && this.state.get(j) === 'running') {
      this.state.set(j, 'waiting');
      pump();
    }
    try {
      return await fn();
    } finally {
      const left = this.depth.get(j)! - 1;
      this.depth.set(j, left);
      if (left === 0 && this.state.get(j) === 'waiting') {
        await new Promise<void>((r) => {
          this.state.set(j, 'resuming');
          this.resume.set(j, r);
          pump();
        });
      }
    }
  }
}
