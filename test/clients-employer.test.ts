// Employer tools as agents found them, through the SDK client: searches that say what they understood
// and ignored and never call a partial match exact (D-95), the scam check on Indonesian amounts without
// "Rp", and hire sharing no shortlist for a brief the scam check holds (D-96).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { call, connectMcp, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 300 });
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);
let emp: Connected;

beforeAll(async () => {
  emp = await connectMcp(
    `${sb.get().baseUrl}/api/mcp`,
    (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey,
  );
});
afterAll(async () => {
  await emp?.close();
});

const AMBON = 'Rust embedded firmware engineer in Ambon with 15 years';

describe('talent_search and match_candidates', () => {
  it('say what was ignored, and match nothing when no role or skill was understood', async () => {
    const t = await call(emp.client, 'talent_search', { query: AMBON });
    expect(t.isError).toBe(false);
    expect(t.data.ignored).toEqual(expect.arrayContaining(['rust', 'embedded', 'firmware', 'ambon']));
    expect(t.data.criteria.minYears).toBe(15);
    expect(t.data.cards).toEqual([]);
    expect(t.data.matchCount).toBe(0);
    expect(t.data.note).toMatch(/ignored/i);
    const m = await call(emp.client, 'match_candidates', { query: AMBON });
    expect(m.data.ignored).toEqual(expect.arrayContaining(['rust', 'firmware', 'ambon']));
    expect(m.data.candidates).toEqual([]);
  });

  it('never call a match exact when part of the brief was ignored', async () => {
    const full = await call(emp.client, 'talent_search', { query: 'frontend engineer with React and TypeScript' });
    expect(full.data.ignored).toEqual([]);
    expect(full.data.cards.some((c: any) => c.tier === 'exact')).toBe(true);
    const partial = await call(emp.client, 'talent_search', {
      query: 'frontend engineer with React and TypeScript in Ambon',
      skills: ['Haskell-on-FPGA'],
    });
    expect(partial.data.ignored).toEqual(expect.arrayContaining(['ambon', 'Haskell-on-FPGA']));
    expect(partial.data.cards.length).toBeGreaterThan(0);
    for (const c of partial.data.cards) expect(c.tier).not.toBe('exact');
    expect(partial.data.note).toContain('"ambon"');
    const m = await call(emp.client, 'match_candidates', {
      query: 'frontend engineer with React and TypeScript in Ambon',
    });
    expect(m.data.ignored).toEqual(['ambon']);
    expect(m.data.candidates.length).toBeGreaterThan(0);
  });
});

describe('the scam check on amounts without "Rp"', () => {
  const brief = (pay: string) =>
    `Data entry from home. ${pay} typing short documents for our clients, no experience needed, start this week with a simple test task.`;

  it.each([
    'earn 5 juta per day',
    '5 juta per day',
    'gaji 5jt/hari',
    'penghasilan 500rb sehari',
    'earn Rp 5.000.000 per day',
  ])('holds a posting promising %s', async (pay) => {
    const r = await call(emp.client, 'post_job', {
      title: 'Data entry from home',
      company: 'PT Data Maju',
      description: brief(pay),
      apply_url: 'https://datamaju.example/careers/data-entry',
    });
    expect(r.isError).toBe(false);
    expect(r.data.status).toBe('manual_review');
    expect(r.data.checkoutUrl).toBeNull();
    expect(r.data.scamCheck.rules.map((x: any) => x.id)).toContain('unrealistic_pay');
  });

  it('lets an honest daily rate through', async () => {
    const r = await call(emp.client, 'post_job', {
      title: 'Contract data engineer',
      company: 'PT Data Maju',
      description:
        'Three-month contract building data pipelines in Python and Airflow for our analytics team; daily rate IDR 1.500.000 per day, paid monthly.',
      apply_url: 'https://datamaju.example/careers/data-engineer',
    });
    expect(r.data.scamCheck.rules.map((x: any) => x.id)).not.toContain('unrealistic_pay');
  });
});

describe('hire with a brief the scam check holds', () => {
  it('returns and e-mails no shortlist, even with strong matches', async () => {
    const to = 'people@scammy.example';
    const r = await call(emp.client, 'hire', {
      brief:
        'We need a frontend engineer with React and TypeScript. Earn 5 juta per day, contact us on WhatsApp first.',
      company: 'Awan Studio',
      contact_email: to,
    });
    expect(r.isError).toBe(false);
    expect(r.data.strongMatches).toBeGreaterThanOrEqual(3);
    expect(r.data.strongMatch).toBe(false);
    expect(r.data.shortlist).toBeUndefined();
    expect(r.data.scamCheck.passed).toBe(false);
    expect(r.data.scamCheck.rules.map((x: any) => x.id)).toEqual(
      expect.arrayContaining(['unrealistic_pay', 'personal_messaging']),
    );
    expect((await admin()('GET', `/sandbox/v1/outbox?to=${to}`)).json.messages).toEqual([]);
  });
});
