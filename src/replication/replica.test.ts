// The replica's timing defaults are the ones the decisions promise an operator: an attempt whose instance
// stopped is recorded as lost 25 s after it was made (the 15 s receiver timeout and 10 s of grace, D-113,
// D-138), and an idle instance looks for such attempts and applies the others' steps every 2 s (D-138).
// Tests may shorten both through a StoreHooks option; nothing a deployment sets reaches them.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { limits } from '../domain/plans.js';
import { DEFAULT_REPLICA_TIMING } from './replica.js';

const decisions = readFileSync(path.resolve('contracts/DECISIONS.md'), 'utf8');

/** The section of DECISIONS.md under `### D-<n> — …`, up to the next decision. */
function decision(n: number): string {
  const start = decisions.search(new RegExp(`^### D-${n} `, 'm'));
  expect(start, `D-${n} in DECISIONS.md`).toBeGreaterThanOrEqual(0);
  const next = decisions.slice(start + 1).search(/^### D-\d+ /m);
  return decisions.slice(start, next < 0 ? undefined : start + 1 + next).replace(/\s+/g, ' ');
}

/** The seconds a sentence of a decision names, as milliseconds. */
function seconds(text: string, pattern: RegExp): number {
  const m = text.match(pattern);
  expect(m, `${pattern} in the decision`).not.toBeNull();
  return Number(m![1]) * 1000;
}

describe('replica timing defaults (D-113, D-138)', () => {
  it('an attempt whose instance stopped is taken for lost 25 s after it was made: the 15 s timeout and 10 s of grace', () => {
    const lostAfter = seconds(decision(138), /recorded as lost .*? (\d+) s after they were made/);
    expect(limits.policy.webhook.timeoutMs + DEFAULT_REPLICA_TIMING.lostAttemptGraceMs).toBe(lostAfter);
    const d113 = decision(113);
    expect(DEFAULT_REPLICA_TIMING.lostAttemptGraceMs).toBe(seconds(d113, /the \d+ s timeout and (\d+) s of grace/));
    expect(limits.policy.webhook.timeoutMs).toBe(seconds(d113, /the (\d+) s timeout and \d+ s of grace/));
  });

  it("an idle instance applies the others' steps (and looks for lost attempts) every 2 s", () => {
    expect(DEFAULT_REPLICA_TIMING.sweepMs).toBe(
      seconds(decision(138), /an idle instance applies the others' steps every (\d+) s/),
    );
  });
});

describe('an idle instance following the others (D-191)', () => {
  it("applies the others' steps every 100 ms while they write", () => {
    expect(DEFAULT_REPLICA_TIMING.followMs).toBe(
      seconds(decision(191), /an idle instance applies their steps every (\d+) ms/) / 1000,
    );
    expect(DEFAULT_REPLICA_TIMING.followMs).toBeLessThan(DEFAULT_REPLICA_TIMING.sweepMs);
  });
});

describe('a tenant served elsewhere (D-172, D-192)', () => {
  it('is dropped after 30 s however few calls arrive here', () => {
    expect(DEFAULT_REPLICA_TIMING.foreignIdleLongMs).toBe(
      seconds(decision(192), /dropped once its steps have come only from other instances for (\d+) s/),
    );
  });
  it('such tenants leave as many at a time as are forgotten within 50 ms', () => {
    const m = decision(192).match(/as many as it forgets within (\d+) ms \(`dropSliceMs`/);
    expect(m, 'the slice in D-192').not.toBeNull();
    expect(DEFAULT_REPLICA_TIMING.dropSliceMs).toBe(Number(m![1]));
  });
});

describe('replica batch budget (D-151)', () => {
  it('a batch stops taking steps once they have run 4 ms', () => {
    expect(DEFAULT_REPLICA_TIMING.batchBudgetMs).toBe(
      seconds(decision(151), /once its steps have run (\d+) ms/) / 1000,
    );
  });
});
