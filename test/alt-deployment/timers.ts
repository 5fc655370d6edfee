// Timers the deployment owns, so stop() can cancel every pending scoring, review and retry step.

export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  stopped = false;

  after(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.pending.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.pending.add(t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }
}
