// Accounts of the alternate deployment: seeded tenants, their keys, plans, scopes and wallets.
import { randomBytes } from 'node:crypto';

export type Plan = 'free' | 'starter' | 'pro' | 'scale';
export type Scope = 'screening' | 'jobs' | 'mcp' | 'apply' | 'employer';
export const ALL_SCOPES: readonly Scope[] = ['screening', 'jobs', 'mcp', 'apply', 'employer'];
export const KEY_PREFIX = 'altk_live_';

/** Screening wallets: free is a lifetime allowance, paid wallets refill every 30 days from the account's start. */
export const SCREENING_CAPS: Record<Plan, number> = { free: 150, starter: 300, pro: 1500, scale: 6000 };
export const SCREENING_PERIOD_MS = 30 * 24 * 3600 * 1000;
/** Apply credits per month, as the jobs document's tier table states. */
export const APPLY_CREDITS: Record<Plan, number> = { free: 0, starter: 100, pro: 500, scale: 500 };

export interface SavedResume {
  headline: string;
  skills: { name: string; years: number }[];
  email: string;
}

export interface Tenant {
  id: string;
  slot: string;
  plan: Plan;
  key: string;
  scopes: Set<Scope>;
  webhookUrl?: string;
  webhookSecret: string;
  screeningUsed: number;
  periodStart: number;
  applyBalance: number;
  resume: SavedResume;
  draftsThisMonth: number;
  draftMonth?: string;
  talentSearchDay: { day: string; count: number };
}

export type Slot =
  'free' | 'starter' | 'pro' | 'scale' | 'noScreeningScope' | 'noJobsScope' | 'noMcpScope' | 'screeningSpent';

const SEEDS: { slot: Slot; plan: Plan; without?: Scope; spent?: boolean; webhook?: boolean }[] = [
  { slot: 'free', plan: 'free', webhook: true },
  { slot: 'starter', plan: 'starter', webhook: true },
  { slot: 'pro', plan: 'pro', webhook: true },
  { slot: 'scale', plan: 'scale', webhook: true },
  { slot: 'noScreeningScope', plan: 'pro', without: 'screening' },
  { slot: 'noJobsScope', plan: 'pro', without: 'jobs' },
  { slot: 'noMcpScope', plan: 'pro', without: 'mcp' },
  { slot: 'screeningSpent', plan: 'starter', spent: true },
];

const RESUMES: SavedResume[] = [
  {
    headline: 'Backend engineer',
    skills: [
      { name: 'TypeScript', years: 5 },
      { name: 'PostgreSQL', years: 4 },
      { name: 'Node.js', years: 5 },
    ],
    email: 'seeker1@example.net',
  },
  {
    headline: 'Data engineer',
    skills: [
      { name: 'Python', years: 6 },
      { name: 'SQL', years: 6 },
      { name: 'Airflow', years: 3 },
    ],
    email: 'seeker2@example.net',
  },
  {
    headline: 'Product designer',
    skills: [
      { name: 'Figma', years: 4 },
      { name: 'User research', years: 3 },
    ],
    email: 'seeker3@example.net',
  },
];

const hex = (n: number) => randomBytes(n).toString('hex');

export class TenantStore {
  private readonly byKey = new Map<string, Tenant>();
  readonly bySlot = new Map<Slot, Tenant>();
  readonly all: Tenant[] = [];

  constructor(webhookUrl: string | undefined, now: number, keyPrefix = KEY_PREFIX) {
    SEEDS.forEach((s, i) => {
      const t: Tenant = {
        id: `acct-${s.slot.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-${hex(3)}`,
        slot: s.slot,
        plan: s.plan,
        key: keyPrefix + hex(12),
        scopes: new Set(ALL_SCOPES.filter((x) => x !== s.without)),
        webhookUrl: s.webhook ? webhookUrl : undefined,
        webhookSecret: `whk_${hex(16)}`,
        screeningUsed: s.spent ? SCREENING_CAPS[s.plan] : 0,
        periodStart: now,
        applyBalance: APPLY_CREDITS[s.plan],
        resume: RESUMES[i % RESUMES.length],
        draftsThisMonth: 0,
        talentSearchDay: { day: '', count: 0 },
      };
      this.byKey.set(t.key, t);
      this.bySlot.set(s.slot, t);
      this.all.push(t);
    });
  }

  byApiKey(key: string): Tenant | undefined {
    return this.byKey.get(key);
  }

  slot(s: Slot): Tenant {
    return this.bySlot.get(s)!;
  }
}
