// Accounts of the account dashboard: an e-mail and a password (scrypt with a per-account salt and
// explicit cost parameters, compared in constant time) owning one tenant on the free tier; browser
// sessions kept as state, with ids and CSRF tokens drawn from the run's secret source, so every
// instance of a shared sandbox holds the same sessions; the abuse limits of sign-up and sign-in per
// client address on the sandbox clock; the simulated checkout with a payment provider's test cards,
// which changes the tier through the same plan change as the control API.
// Requirements: SCR-CREDIT-5 (the upsell's next step leads here); decisions D-126, D-127, D-128, D-129.

import { scryptSync, timingSafeEqual } from 'node:crypto';
import { DomainError, invalid, notFound, rateLimited, unauthorized } from '../errors/errors.js';
import { isPlanTier, jobsLimitsOf, limits, type PlanTier } from './plans.js';
import { FixedWindowLimiter, type WindowState } from './ratelimit/limiter.js';
import type { IdFactory } from './rng.js';
import type { TenantService } from './tenants.js';

const POLICY = limits.policy.dashboard;
/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB per hash), a 32-byte key (D-127). */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
const EMAIL_MAX = 254;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export const CURRENCIES = ['USD', 'IDR'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface Payment {
  id: string;
  planTier: PlanTier;
  currency: Currency;
  amount: number;
  cardLast4: string;
  at: number;
}

export interface Account {
  id: string;
  email: string;
  /** `scrypt$N$r$p$salt$hash` (hex hash): the parameters travel with the hash, so they can be raised later. */
  password: string;
  tenantId: string;
  createdAt: number;
  payments: Payment[];
}

export interface DashboardSession {
  id: string;
  csrf: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

export interface CheckoutInput {
  planTier: string;
  currency: string;
  cardNumber: string;
  expiry: string;
  cvc: string;
}

function hashPassword(password: string, salt: string): string {
  const { N, r, p, maxmem } = SCRYPT;
  const key = scryptSync(password, salt, KEY_BYTES, { N, r, p, maxmem });
  return `scrypt$${N}$${r}$${p}$${salt}$${key.toString('hex')}`;
}

function passwordMatches(password: string, stored: string): boolean {
  const [kind, n, r, p, salt, hex] = stored.split('$');
  if (kind !== 'scrypt' || !hex) return false;
  const want = Buffer.from(hex, 'hex');
  const got = scryptSync(password, salt, want.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(got, want);
}

/** A stored hash no password matches, so an unknown e-mail costs a sign-in as much time as a known one. */
let decoy: string | null = null;
const DECOY = () => (decoy ??= hashPassword('not a password of anyone', 'decoy-salt'));

/** The monthly price of a tier: the jobs document's for free, starter and pro; policy for scale. */
export function priceOf(tier: PlanTier, currency: Currency): number {
  const usd = tier === 'scale' ? POLICY.scalePriceUsdPerMonth : jobsLimitsOf(tier).priceUsdPerMonth;
  return currency === 'USD' ? usd : Math.round(usd * POLICY.idrPerUsd);
}

/** The Luhn checksum every card number carries. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** The accounts of one tenant with their live sessions (D-137). */
export interface AccountsTenantState {
  accounts: Account[];
  sessions: DashboardSession[];
}

/** The abuse windows per client address, which belong to no tenant (D-137). */
export interface AccountsGlobalState {
  signUpAttempts: WindowState[];
  signUps: WindowState[];
  signInFailures: WindowState[];
}

export class AccountService {
  private byId = new Map<string, Account>();
  private byEmail = new Map<string, Account>();
  private sessions = new Map<string, DashboardSession>();
  // every bucket a client address, on the sandbox clock: swept (D-193)
  private signUpAttempts = FixedWindowLimiter.perMinute(() => true);
  private signUps = FixedWindowLimiter.perUtcDay(() => true);
  private signInFailures = FixedWindowLimiter.perMinute(() => true);

  constructor(
    private readonly ids: IdFactory,
    private readonly now: () => number,
    private readonly tenants: TenantService,
  ) {}

  /**
   * Opens an account with a tenant of its own on the free tier and signs it in. Throttled per client
   * address (attempts per minute, accounts per UTC day); a bad field is an `invalid_request` naming it.
   */
  signUp(input: { email: string; password: string; address: string }): {
    account: Account;
    session: DashboardSession;
    apiKey: string;
  } {
    const now = this.now();
    const attempt = this.signUpAttempts.hit(input.address, POLICY.signUpAttemptsPerMinute, now);
    if (!attempt.allowed)
      throw rateLimited(
        `Too many sign-up attempts from this address; try again in ${attempt.resetSeconds} s.`,
        attempt.resetSeconds,
      );
    const email = input.email.trim().toLowerCase();
    if (!email) throw invalid('Enter an e-mail address.', 'email');
    if (email.length > EMAIL_MAX || !EMAIL.test(email))
      throw invalid('Enter an e-mail address like name@example.com.', 'email');
    if (this.byEmail.has(email))
      throw invalid('An account with this e-mail address exists already; sign in instead.', 'email');
    if (input.password.length < PASSWORD_MIN)
      throw invalid(`Choose a password of at least ${PASSWORD_MIN} characters.`, 'password');
    if (input.password.length > PASSWORD_MAX)
      throw invalid(`Choose a password of at most ${PASSWORD_MAX} characters.`, 'password');
    const day = this.signUps.peek(input.address, POLICY.accountsPerAddressPerDay, now);
    if (!day.allowed) {
      throw rateLimited(
        `This address has opened ${POLICY.accountsPerAddressPerDay} accounts today, the most it may; try again in ${Math.ceil(day.resetSeconds / 3600)} h.`,
        day.resetSeconds,
      );
    }
    this.signUps.hit(input.address, POLICY.accountsPerAddressPerDay, now);
    const { tenant, apiKey } = this.tenants.create({ planTier: 'free', name: email });
    const account: Account = {
      id: this.ids.nextOf(tenant.id, 'acct'),
      email,
      password: hashPassword(input.password, this.ids.secret(24)),
      tenantId: tenant.id,
      createdAt: now,
      payments: [],
    };
    this.byId.set(account.id, account);
    this.byEmail.set(email, account);
    return { account, session: this.openSession(account), apiKey };
  }

  /** Signs in; a wrong e-mail or password is one 401 (which of them is not said), counted per address. */
  signIn(input: { email: string; password: string; address: string }): { account: Account; session: DashboardSession } {
    const now = this.now();
    const max = POLICY.signInFailuresPerMinute;
    const seen = this.signInFailures.peek(input.address, max, now);
    if (!seen.allowed)
      throw rateLimited(
        `Too many failed sign-ins from this address; try again in ${seen.resetSeconds} s.`,
        seen.resetSeconds,
      );
    const email = input.email.trim().toLowerCase();
    if (!email) throw invalid('Enter the e-mail address of your account.', 'email');
    if (!input.password) throw invalid('Enter your password.', 'password');
    const account = this.byEmail.get(email);
    const ok =
      passwordMatches(input.password.slice(0, PASSWORD_MAX + 1), account?.password ?? DECOY()) && account !== undefined;
    if (!ok) {
      this.signInFailures.hit(input.address, max, now);
      throw unauthorized('That e-mail address and password do not match an account.');
    }
    return { account, session: this.openSession(account) };
  }

  private openSession(account: Account): DashboardSession {
    const now = this.now();
    const mine = [...this.sessions.values()].filter((s) => s.accountId === account.id);
    // the oldest sessions of an account give way past the bound
    for (const s of mine.slice(0, Math.max(0, mine.length - POLICY.sessionsPerAccount + 1))) this.sessions.delete(s.id);
    const session: DashboardSession = {
      id: this.ids.secret(40),
      csrf: this.ids.secret(32),
      accountId: account.id,
      createdAt: now,
      expiresAt: now + POLICY.sessionHours * 3_600_000,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id and its account, or null (unknown, signed out, expired, account gone). */
  session(id: string | undefined): { session: DashboardSession; account: Account } | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session || this.now() >= session.expiresAt) return null;
    const account = this.byId.get(session.accountId);
    return account ? { session, account } : null;
  }

  /** The tenant of the account with this e-mail address (as signIn reads it), or null. */
  tenantOfEmail(email: string): string | null {
    return this.byEmail.get(email.trim().toLowerCase())?.tenantId ?? null;
  }

  signOut(id: string): void {
    this.sessions.delete(id);
  }

  account(id: string): Account {
    const a = this.byId.get(id);
    if (!a) throw notFound(`account ${id} does not exist`);
    return a;
  }

  /**
   * The simulated checkout: a test card that succeeds changes the tier (both wallets re-planned at the
   * new caps) and records the payment; the declined test card, or any other card, changes nothing.
   */
  checkout(account: Account, input: CheckoutInput): Payment {
    if (!isPlanTier(input.planTier)) throw invalid('Choose one of the plans.', 'planTier');
    const tier = input.planTier;
    const currency = input.currency as Currency;
    if (!(CURRENCIES as readonly string[]).includes(currency)) throw invalid('Choose USD or IDR.', 'currency');
    const tenant = this.tenants.get(account.tenantId);
    if (tier === tenant.planTier) throw invalid(`You are on the ${tier} plan already.`, 'planTier');
    const digits = input.cardNumber.replace(/[\s-]/g, '');
    const amount = priceOf(tier, currency);
    if (amount > 0) {
      if (!/^\d{12,19}$/.test(digits) || !luhn(digits))
        throw invalid('Enter a valid card number (test mode: 4242 4242 4242 4242).', 'cardNumber');
      const m = /^\s*(\d{1,2})\s*\/\s*(\d{2})\s*$/.exec(input.expiry);
      const month = m ? Number(m[1]) : 0;
      if (!m || month < 1 || month > 12) throw invalid('Enter the expiry as MM/YY.', 'expiry');
      const now = new Date(this.now());
      const year = 2000 + Number(m[2]);
      if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1))
        throw invalid('This card has expired.', 'expiry');
      if (!/^\d{3,4}$/.test(input.cvc.trim())) throw invalid('Enter the 3 or 4 digits of the security code.', 'cvc');
      if (digits === POLICY.testCards.declined) {
        throw new DomainError(
          'payment_required',
          'Your card was declined. Nothing was charged and your plan is unchanged.',
          { field: 'cardNumber' },
        );
      }
      if (digits !== POLICY.testCards.succeeds) {
        throw invalid(
          'Test mode takes test cards only: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined.',
          'cardNumber',
        );
      }
    }
    this.tenants.applyPlan(tenant, tier);
    const payment: Payment = {
      id: this.ids.nextOf(account.tenantId, 'pay'),
      planTier: tier,
      currency,
      amount,
      cardLast4: amount > 0 ? digits.slice(-4) : '',
      at: this.now(),
    };
    account.payments.push(payment);
    return payment;
  }

  exportState(): AccountsGlobalState {
    return {
      signUpAttempts: this.signUpAttempts.exportState(),
      signUps: this.signUps.exportState(),
      signInFailures: this.signInFailures.exportState(),
    };
  }

  importState(state: AccountsGlobalState): void {
    this.signUpAttempts.importState(state.signUpAttempts);
    this.signUps.importState(state.signUps);
    this.signInFailures.importState(state.signInFailures);
  }

  exportTenant(tenantId: string): AccountsTenantState {
    const accounts = [...this.byId.values()].filter((a) => a.tenantId === tenantId);
    const ids = new Set(accounts.map((a) => a.id));
    const sessions = [...this.sessions.values()].filter((s) => ids.has(s.accountId));
    return structuredClone({ accounts, sessions });
  }

  importTenant(tenantId: string, state: AccountsTenantState): void {
    this.forgetTenant(tenantId);
    const s = structuredClone(state);
    for (const a of s.accounts) {
      this.byId.set(a.id, a);
      this.byEmail.set(a.email, a);
    }
    for (const session of s.sessions) this.sessions.set(session.id, session);
  }

  forgetTenant(tenantId: string): void {
    for (const a of [...this.byId.values()]) {
      if (a.tenantId !== tenantId) continue;
      this.byId.delete(a.id);
      this.byEmail.delete(a.email);
      for (const s of [...this.sessions.values()]) if (s.accountId === a.id) this.sessions.delete(s.id);
    }
  }

  /**
   * What names a tenant among the accounts (each account's e-mail, each session's id), of one tenant or of all,
   * read without copying: a shared sandbox keeps its routing directory with it.
   */
  namesOf(tenantId?: string): { tenantId: string; kind: 'email' | 'session'; name: string }[] {
    const out: { tenantId: string; kind: 'email' | 'session'; name: string }[] = [];
    for (const a of this.byId.values())
      if (tenantId === undefined || a.tenantId === tenantId)
        out.push({ tenantId: a.tenantId, kind: 'email', name: a.email });
    for (const s of this.sessions.values()) {
      const a = this.byId.get(s.accountId);
      if (a && (tenantId === undefined || a.tenantId === tenantId))
        out.push({ tenantId: a.tenantId, kind: 'session', name: s.id });
    }
    return out;
  }

  clear(): void {
    this.byId.clear();
    this.byEmail.clear();
    this.sessions.clear();
    this.signUpAttempts.reset();
    this.signUps.reset();
    this.signInFailures.reset();
  }
}
