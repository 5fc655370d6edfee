// A credit wallet with a cap and an optional monthly reset on the sandbox clock.
// The screening wallet and the jobs apply wallet of a tenant are two instances.
// Requirements: SCR-CREDIT-1, JOB-APPLY-2, JOB-TIER-3, POL-CREDIT-1, POL-CREDIT-3, POL-USAGE-1; decisions D-05,
// D-16, D-17.

import { nextMonthStart } from './plans.js';

export interface WalletState {
  cap: number;
  remaining: number;
  resetAt: number | null;
}

export class Wallet {
  cap: number;
  remaining: number;
  /** When the wallet refills to its cap (ms), or null when it never resets. */
  resetAt: number | null;

  constructor(cap: number, resets: boolean, now: number) {
    this.cap = cap;
    this.remaining = cap;
    this.resetAt = resets ? nextMonthStart(now) : null;
  }

  /** Applies every reset that has come due by `now`. */
  refresh(now: number): void {
    if (this.resetAt !== null && now >= this.resetAt) {
      this.remaining = this.cap;
      this.resetAt = nextMonthStart(now);
    }
  }

  /** Takes `n` credits if there are enough; returns whether it did. */
  tryCharge(n: number, now: number): boolean {
    this.refresh(now);
    if (this.remaining < n) return false;
    this.remaining -= n;
    return true;
  }

  /** The wallet as a snapshot keeps it (D-136). */
  exportState(): WalletState {
    return { cap: this.cap, remaining: this.remaining, resetAt: this.resetAt };
  }

  /** A wallet exactly as exported. */
  static fromState(state: WalletState): Wallet {
    const w = new Wallet(state.cap, false, 0);
    w.remaining = state.remaining;
    w.resetAt = state.resetAt;
    return w;
  }

  refund(n: number): void {
    this.remaining += n;
  }

  /** Re-plans the wallet for a new tier: new cap, full refill, new reset rule. */
  replan(cap: number, resets: boolean, now: number): void {
    this.cap = cap;
    this.remaining = cap;
    this.resetAt = resets ? nextMonthStart(now) : null;
  }

  get used(): number {
    return Math.max(0, this.cap - this.remaining);
  }

  /** Share of the cap used, clamped to 0..1 (a top-up above the cap reads as 0). */
  usageRatio(): number {
    if (this.cap <= 0) return this.remaining > 0 ? 0 : 1;
    return Math.min(1, Math.max(0, this.used / this.cap));
  }
}
