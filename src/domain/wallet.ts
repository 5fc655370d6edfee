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

/** A wallet as of a moment, as a read reports it (`Wallet.at`). */
export interface WalletView {
  cap: number;
  remaining: number;
  resetAt: number | null;
  /** Credits used of the cap (0 when a top-up is above it). */
  used: number;
  /** Share of the cap used, clamped to 0..1 (a top-up above the cap reads as 0). */
  usageRatio: number;
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

  /** Whether a reset has come due by `now`. */
  private due(now: number): boolean {
    return this.resetAt !== null && now >= this.resetAt;
  }

  /** Applies every reset that has come due by `now` (only a step that changes the wallet does). */
  private refresh(now: number): void {
    if (this.due(now)) {
      this.remaining = this.cap;
      this.resetAt = nextMonthStart(now);
    }
  }

  /**
   * The wallet as of `now`, resets due by then applied, without changing it: a read changes no state, so that every
   * instance of a shared sandbox, whichever reads it served, holds the same wallet (D-162).
   */
  at(now: number): WalletView {
    const due = this.due(now);
    const remaining = due ? this.cap : this.remaining;
    const used = Math.max(0, this.cap - remaining);
    const usageRatio = this.cap <= 0 ? (remaining > 0 ? 0 : 1) : Math.min(1, Math.max(0, used / this.cap));
    return { cap: this.cap, remaining, resetAt: due ? nextMonthStart(now) : this.resetAt, used, usageRatio };
  }

  /** Sets the credits left (the operator's), after the resets due by `now`: a later step does not refill them. */
  setRemaining(n: number, now: number): void {
    this.refresh(now);
    this.remaining = n;
  }

  /** Takes `n` credits if there are enough; returns whether it did. */
  tryCharge(n: number, now: number): boolean {
    this.refresh(now);
    if (this.remaining < n) return false;
    this.remaining -= n;
    return true;
  }

  /** The wallet as a snapshot keeps it (D-137). */
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

  /** Re-plans the wallet for a new tier: new cap, full refill, new reset rule. */
  replan(cap: number, resets: boolean, now: number): void {
    this.cap = cap;
    this.remaining = cap;
    this.resetAt = resets ? nextMonthStart(now) : null;
  }
}
