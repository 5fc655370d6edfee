import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AccountService, priceOf } from './accounts.js';
import { Clock } from './clock.js';
import { limits } from './plans.js';
import { IdFactory, Rng } from './rng.js';
import { TenantService } from './tenants.js';

function setup() {
  let real = Date.UTC(2026, 10, 26, 9);
  const clock = new Clock(() => real);
  const ids = new IdFactory(new Rng(7), 'test00');
  const tenants = new TenantService(ids, (tenantId) => clock.of(tenantId));
  const accounts = new AccountService(ids, () => clock.now(), tenants);
  return { accounts, tenants, advance: (ms: number) => (real += ms) };
}

const POLICY = limits.policy.dashboard;

describe('dashboard accounts', () => {
  it('stores passwords as scrypt with explicit costs and a salt of their own, never the password', () => {
    const { accounts } = setup();
    const a = accounts.signUp({ email: 'a@example.com', password: 'same password!', address: '10.0.0.1' }).account;
    const b = accounts.signUp({ email: 'b@example.com', password: 'same password!', address: '10.0.0.1' }).account;
    const [kind, n, r, p, salt, hex] = a.password.split('$');
    expect([kind, n, r, p]).toEqual(['scrypt', String(2 ** 15), '8', '1']);
    expect(hex).toBe(
      scryptSync('same password!', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString('hex'),
    );
    expect(a.password).not.toContain('same password!');
    expect(b.password.split('$')[4]).not.toBe(salt);
    expect(b.password.split('$')[5]).not.toBe(hex);
  });

  it('signs in with the right password only, and ends sessions on sign-out, after their hours, and past the bound', () => {
    const { accounts, advance } = setup();
    const { session } = accounts.signUp({ email: 'c@example.com', password: 'a fine password', address: '10.0.0.2' });
    expect(() => accounts.signIn({ email: 'c@example.com', password: 'a fine passwore', address: '10.0.0.2' })).toThrow(
      /do not match/,
    );
    const signedIn = accounts.signIn({
      email: ' C@EXAMPLE.com ',
      password: 'a fine password',
      address: '10.0.0.2',
    }).session;
    expect(accounts.session(signedIn.id)?.account.email).toBe('c@example.com');
    accounts.signOut(signedIn.id);
    expect(accounts.session(signedIn.id)).toBeNull();
    expect(accounts.session(session.id)).not.toBeNull();
    advance(POLICY.sessionHours * 3_600_000);
    expect(accounts.session(session.id)).toBeNull();
  });

  it('keeps at most sessionsPerAccount sessions, dropping the oldest', () => {
    const { accounts } = setup();
    const first = accounts.signUp({ email: 'd@example.com', password: 'a fine password', address: '10.0.0.3' }).session;
    const later = [];
    for (let i = 0; i < POLICY.sessionsPerAccount; i++)
      later.push(
        accounts.signIn({ email: 'd@example.com', password: 'a fine password', address: `10.0.1.${i}` }).session,
      );
    expect(accounts.session(first.id)).toBeNull();
    expect(later.every((s) => accounts.session(s.id) !== null)).toBe(true);
  });

  it('prices plans from the tier tables, scale and IDR from policy', () => {
    expect(priceOf('starter', 'USD')).toBe(limits.spec.jobs.starter.priceUsdPerMonth);
    expect(priceOf('pro', 'IDR')).toBe(limits.spec.jobs.pro.priceUsdPerMonth * POLICY.idrPerUsd);
    expect(priceOf('scale', 'USD')).toBe(POLICY.scalePriceUsdPerMonth);
    expect(priceOf('free', 'IDR')).toBe(0);
  });
});
