import { describe, expect, it } from 'vitest';
import { IDR_PER_USD, MONTHLY_FACTOR } from '../jobs/pay.js';
import { REJECT_AT, REVIEW_AT, SCAM_RULES, payPerMonthIdr, scamCheck, type Posting } from './scamCheck.js';

const clean: Posting = {
  title: 'Customer Support Specialist (Bahasa Indonesia and English)',
  company: 'Lumbung Travel',
  description:
    'Answer customer chats and e-mails about bookings in Bahasa Indonesia and English, write help-centre articles and escalate refunds. Fully remote, Monday to Friday in WIB hours.',
  contactEmail: 'jobs@lumbung.example',
  applyUrl: 'https://lumbung.example/careers/support',
  pay: { min: 6_000_000, max: 8_000_000, currency: 'IDR', period: 'month' },
};
const fired = (p: Partial<Posting>) => scamCheck({ ...clean, ...p }).rules.map((r) => r.id);

describe('scamCheck', () => {
  it('passes an ordinary posting with no rule firing', () => {
    expect(scamCheck(clean)).toEqual({ passed: true, score: 0, verdict: 'live', rules: [] });
  });

  it('has unique rule ids, positive weights and a description for each', () => {
    expect(new Set(SCAM_RULES.map((r) => r.id)).size).toBe(SCAM_RULES.length);
    for (const r of SCAM_RULES) {
      expect(r.weight).toBeGreaterThan(0);
      expect(r.description.length).toBeGreaterThan(10);
    }
  });

  it.each([
    [
      'upfront_fee',
      { description: `${clean.description} A registration fee of Rp 150.000 is required before training.` },
    ],
    ['upfront_fee', { description: `${clean.description} Biaya pendaftaran Rp 100.000.` }],
    ['personal_messaging', { description: `${clean.description} Chat us on WhatsApp.` }],
    ['personal_messaging', { description: `${clean.description} Call 0812 3456 7890.` }],
    ['crypto_investment', { description: `${clean.description} Bonus paid in USDT.` }],
    ['unrealistic_pay', { pay: { min: 20_000, max: 30_000, currency: 'USD', period: 'month' } }],
    ['unrealistic_pay', { description: `${clean.description} Earn Rp 2 juta per hari.` }],
    ['missing_company', { company: 'Confidential' }],
    ['missing_company', { company: '  ' }],
    ['free_mail_contact', { contactEmail: 'hr.lumbung@gmail.com' }],
    [
      'personal_data_request',
      { description: `${clean.description} Please send your KTP and bank account with the application.` },
    ],
    ['too_good_to_be_true', { description: `${clean.description} Guaranteed income every week.` }],
    ['urgency_pressure', { description: `${clean.description} Limited slots, apply today only!` }],
    ['link_shortener', { applyUrl: 'https://bit.ly/3xYz' }],
    ['vague_description', { description: 'Easy job. Apply now.' }],
  ] as [string, Partial<Posting>][])('rule %s fires on its pattern', (id, change) => {
    expect(fired(change)).toContain(id);
  });

  it('reviews from REVIEW_AT and rejects from REJECT_AT, with evidence', () => {
    const one = scamCheck({ ...clean, contactEmail: 'x@gmail.com' });
    expect(one.score).toBeLessThan(REVIEW_AT);
    expect(one.verdict).toBe('live');
    const review = scamCheck({
      ...clean,
      contactEmail: 'x@gmail.com',
      description: `${clean.description} Message us on Telegram.`,
    });
    expect(review.score).toBeGreaterThanOrEqual(REVIEW_AT);
    expect(review.score).toBeLessThan(REJECT_AT);
    expect(review.verdict).toBe('manual_review');
    const reject = scamCheck({
      ...clean,
      description: `${clean.description} Pay a deposit, then join our crypto trading signals group.`,
    });
    expect(reject.verdict).toBe('rejected');
    expect(reject.rules.find((r) => r.id === 'upfront_fee')?.evidence).toMatch(/deposit/i);
  });

  it('normalizes pay to IDR per month', () => {
    expect(payPerMonthIdr({ max: 10, currency: 'USD', period: 'hour' })).toBe(
      Math.round(10 * IDR_PER_USD * MONTHLY_FACTOR.hour),
    );
    expect(payPerMonthIdr({ min: 120_000_000, currency: 'IDR', period: 'year' })).toBe(10_000_000);
    expect(payPerMonthIdr({})).toBeNull();
  });
});
