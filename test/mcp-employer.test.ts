// Employer tools over the keyed MCP server: privacy (property-based: no personal data of the pool in
// any output), match_candidates, talent_search with widening and its daily limit, post_job orders and
// checkout, and hire with its shortlist e-mail, free posting and scam check.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Candidate } from '../src/domain/employer/candidatePool.js';
import { ROLES, SKILLS, PLACES } from '../src/domain/employer/vocabulary.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { call, connectMcp, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 300 });
const url = () => `${sb.get().baseUrl}/api/mcp`;
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);

let emp: Connected;
let pool: readonly Candidate[];

beforeAll(async () => {
  emp = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey);
  pool = sb.get().core.employer.pool();
});
afterAll(async () => {
  await emp?.close();
});

const byId = (id: string) => pool.find((c) => c.id === id)!;

/** Every piece of personal data in the pool, lower-cased. */
function secretsOf(c: Candidate): string[] {
  const p = c.private;
  const sentences = p.cvText.split(/(?<=\.)\s+/).filter((s) => s.length >= 25);
  return [
    p.name,
    p.email,
    p.phone,
    p.phone.replace(/\D/g, ''),
    String(p.salaryExpectationIdr),
    p.salaryExpectationIdr.toLocaleString('en-US'),
    ...sentences,
  ].map((s) => s.toLowerCase());
}

describe('privacy', () => {
  it('never outputs a name, contact, CV fragment or salary of the pool the caller did not supply', async () => {
    const secrets = pool.flatMap(secretsOf);
    const names = pool.map((c) => c.private.name);
    const word = fc.oneof(
      fc.constantFrom(...ROLES.flatMap((r) => [r.name, ...r.keywords])),
      fc.constantFrom(...SKILLS),
      fc.constantFrom(...PLACES.map((p) => p.city)),
      fc.constantFrom('senior', 'junior', 'lead', '5 years', 'remote', 'urgent', 'startup'),
      fc.constantFrom(...names),
      fc.string({ maxLength: 12 }),
    );
    const input = fc.record(
      {
        query: fc
          .array(word, { minLength: 1, maxLength: 8 })
          .map((w) => w.join(' ').trim())
          .filter((q) => q.length > 0),
        skills: fc.array(fc.oneof(fc.constantFrom(...SKILLS), fc.string({ minLength: 1, maxLength: 20 })), {
          minLength: 1,
          maxLength: 5,
        }),
        roles: fc.array(fc.constantFrom(...ROLES.map((r) => r.slug)), { minLength: 1, maxLength: 3 }),
        min_years: fc.integer({ min: 0, max: 40 }),
        location: fc.constantFrom(...PLACES.map((p) => p.city), 'Atlantis'),
      },
      { requiredKeys: ['query'] },
    );
    const suppliedAll: unknown[] = [];
    let keyUses = 0;
    let current = emp;
    const leaks = (out: unknown, given: unknown) => {
      const text = JSON.stringify(out).toLowerCase();
      const supplied = JSON.stringify(given).toLowerCase();
      return secrets.filter((s) => !supplied.includes(s) && text.includes(s));
    };
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async (args, publish) => {
        // talent_search allows 50 calls a day per key: move to a fresh key before that
        if (++keyUses > 45) {
          if (current !== emp) await current.close();
          current = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey);
          keyUses = 1;
        }
        const match = await call(current.client, 'match_candidates', { ...args, limit: 25 });
        const talent = await call(current.client, 'talent_search', args);
        const hireArgs = {
          brief: `${args.query} needed for our team`,
          company: 'Acme Nusantara',
          contact_email: 'talent@acme.example',
          publish_if_no_match: publish,
        };
        const hired = await call(current.client, 'hire', hireArgs);
        suppliedAll.push(hireArgs);
        for (const [out, given] of [
          [match, args],
          [talent, args],
          [hired, hireArgs],
        ] as const) {
          expect(out.isError, out.text).toBe(false);
          expect(leaks(out.data, given)).toEqual([]);
        }
        for (const c of match.data.candidates) expect(byId(c.id).consent && byId(c.id).openToWork).toBe(true);
      }),
      { numRuns: 60 },
    );
    if (current !== emp) await current.close();
    const outbox = await admin()('GET', '/sandbox/v1/outbox');
    expect(outbox.json.messages.length).toBeGreaterThan(0);
    // the outbox repeats the employers' own briefs (listing titles), never anything else
    expect(leaks(outbox.json, suppliedAll)).toEqual([]);
  });
});

describe('match_candidates', () => {
  it('needs one of query, skills or roles', async () => {
    for (const args of [{}, { query: '   ' }, { skills: [], roles: [] }, { min_years: 3, location: 'Jakarta' }]) {
      const r = await call(emp.client, 'match_candidates', args);
      expect(r.data.error, JSON.stringify(args)).toMatchObject({ code: 'invalid_request', argument: 'query' });
      expect(r.data.error.message).toMatch(/query, skills or roles/);
    }
  });

  it('ranks consented, open-to-work candidates by relevance with privacy-safe facts', async () => {
    const r = await call(emp.client, 'match_candidates', {
      roles: ['backend-engineer'],
      skills: ['Go', 'PostgreSQL'],
      limit: 8,
    });
    expect(r.data.criteria).toMatchObject({ roles: ['backend-engineer'], skills: ['Go', 'PostgreSQL'] });
    expect(r.data.considered).toBe(pool.filter((c) => c.consent && c.openToWork).length);
    expect(r.data.candidates).toHaveLength(8);
    const scores = r.data.candidates.map((c: any) => c.relevance);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const top = r.data.candidates[0];
    expect(top.relevance).toBeGreaterThanOrEqual(90);
    expect(top.profile.role).toBe('Backend Engineer');
    expect(top.facts.skillYears.map((s: any) => s.skill)).toEqual(expect.arrayContaining(['Go', 'PostgreSQL']));
    const truth = byId(top.id);
    expect(top.facts).toMatchObject({
      needsSponsorship: truth.needsSponsorship,
      noticePeriodWeeks: truth.noticePeriodWeeks,
      workAuthorization: truth.workAuthorization,
    });
    expect(Object.keys(top).sort()).toEqual(['facts', 'id', 'profile', 'relevance']);
  });

  it('reads plain words in English and Indonesian', async () => {
    const r = await call(emp.client, 'match_candidates', {
      query: 'pengembang backend golang postgres, senior, Surabaya',
    });
    expect(r.data.criteria).toEqual({
      roles: ['backend-engineer'],
      skills: ['PostgreSQL', 'Go'],
      minYears: null,
      seniority: 'senior',
      location: 'Surabaya',
    });
  });
});

describe('talent_search', () => {
  it('returns at most 10 tiered cards with a fit breakdown', async () => {
    const r = await call(emp.client, 'talent_search', {
      query: 'senior devops engineer with Kubernetes and Terraform',
    });
    expect(r.data.matchCount).toBeGreaterThan(10);
    expect(r.data.cards).toHaveLength(10);
    expect(r.data.widened).toBe(false);
    for (const card of r.data.cards) {
      expect(['exact', 'close']).toContain(card.tier);
      expect(card.fit).toBeGreaterThanOrEqual(card.tier === 'exact' ? 80 : 60);
      expect(card.breakdown).toEqual({
        skills: expect.any(Number),
        role: expect.any(Number),
        seniority: expect.any(Number),
        location: null,
      });
      expect(card.topSkills.length).toBeLessThanOrEqual(4);
      expect(byId(card.code).city).toBe(card.city);
    }
  });

  it('widens a search with too few matches and says so', async () => {
    const r = await call(emp.client, 'talent_search', { skills: ['Kafka', 'gRPC', 'Airflow'] });
    expect(r.data.widened).toBe(true);
    expect(r.data.note).toMatch(/widened/);
    const tiers = r.data.cards.map((c: any) => c.tier);
    expect(tiers).toContain('broader');
    expect(tiers.filter((t: string) => t !== 'broader').length).toBeLessThan(3);
    expect(tiers.indexOf('broader')).toBe(tiers.length - tiers.filter((t: string) => t === 'broader').length);
  });

  it('allows 50 calls a day per key, then rate_limited until the next UTC day', async () => {
    const key = (await createTenant(sb.get().baseUrl, { planTier: 'starter' })).apiKey;
    const t = await connectMcp(url(), key);
    try {
      const now = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
      if (86_400_000 - (now % 86_400_000) < 120_000)
        await admin()('POST', '/sandbox/v1/clock/advance', { seconds: 180 });
      let last: any;
      for (let i = 1; i <= 50; i++) {
        last = await call(t.client, 'talent_search', { query: 'customer support' });
        expect(last.isError, `call ${i}`).toBe(false);
      }
      expect(last.data.usage).toMatchObject({ callsToday: 50, limitPerDay: 50 });
      const over = await call(t.client, 'talent_search', { query: 'customer support' });
      expect(over.data.error.code).toBe('rate_limited');
      expect(over.data.error.retryAfter).toBeGreaterThan(0);
      // a refused call with bad arguments is not what hits the limit: it is invalid first
      expect((await call(t.client, 'talent_search', {})).data.error.code).toBe('invalid_request');
      await admin()('POST', '/sandbox/v1/clock/advance', { seconds: over.data.error.retryAfter });
      const next = await call(t.client, 'talent_search', { query: 'customer support' });
      expect(next.isError).toBe(false);
      expect(next.data.usage.callsToday).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('post_job', () => {
  const job = {
    title: 'Backend Engineer (Go)',
    company: 'Kopi Kode',
    description:
      'Build and run the payment APIs of an Indonesian coffee marketplace in Go and PostgreSQL, fully remote.',
  };

  it('creates a standard order with a sandbox checkout that takes the listing live', async () => {
    const r = await call(emp.client, 'post_job', { ...job, apply_url: 'https://kopikode.example/careers/1' });
    expect(r.data).toMatchObject({ status: 'pending_payment', tier: 'standard', currency: 'IDR', amount: 750000 });
    expect(r.data.orderId).toMatch(/^ord_/);
    expect(r.data.checkoutUrl).toMatch(
      new RegExp(`^${sb.get().baseUrl}/checkout/${r.data.orderId}\\?token=[0-9a-z]{32}$`),
    );
    const link = new URL(r.data.checkoutUrl);
    const page = await client(sb.get().baseUrl)('GET', link.pathname + link.search);
    expect(page.json.order.status).toBe('pending_payment');
    const paid = await client(sb.get().baseUrl)('POST', `${link.pathname}/pay${link.search}`);
    expect(paid.json.order.status).toBe('live');
    expect((await client(sb.get().baseUrl)('POST', `${link.pathname}/pay${link.search}`)).status).toBe(400);
  });

  it('sends the free pilot to manual review without a checkout; featured costs more', async () => {
    const pilot = await call(emp.client, 'post_job', {
      ...job,
      tier: 'pilot',
      host_apply_form: true,
      contact_email: 'jobs@kopikode.example',
    });
    expect(pilot.data).toMatchObject({ status: 'manual_review', amount: 0, checkoutUrl: null, tier: 'pilot' });
    expect(pilot.data.listing).toMatchObject({ hostedApplyForm: true, applyUrl: null });
    const featured = await call(emp.client, 'post_job', {
      ...job,
      tier: 'featured',
      apply_url: 'https://kopikode.example/careers/2',
    });
    expect(featured.data.amount).toBeGreaterThan(750000);
  });

  it('requires apply_url unless host_apply_form, and refuses inconsistent pay', async () => {
    expect((await call(emp.client, 'post_job', job)).data.error).toMatchObject({
      code: 'invalid_request',
      argument: 'apply_url',
    });
    expect((await call(emp.client, 'post_job', { ...job, host_apply_form: true })).data.error).toMatchObject({
      argument: 'contact_email',
    });
    const pay = await call(emp.client, 'post_job', {
      ...job,
      apply_url: 'https://kopikode.example/a',
      pay_min: 20_000_000,
      pay_max: 10_000_000,
      pay_currency: 'IDR',
    });
    expect(pay.data.error).toMatchObject({ code: 'invalid_request', argument: 'pay_max' });
  });

  it('gives a posting the scam check flags no checkout link', async () => {
    const r = await call(emp.client, 'post_job', {
      title: 'Online data entry',
      company: 'Confidential',
      description:
        'Earn Rp 2 juta per hari from home! Pay a registration fee first, then message us on WhatsApp to start.',
      apply_url: 'https://bit.ly/abc',
    });
    expect(r.data.status).toBe('rejected');
    expect(r.data.checkoutUrl).toBeNull();
    expect(r.data.scamCheck.rules.map((x: any) => x.id)).toEqual(
      expect.arrayContaining([
        'upfront_fee',
        'personal_messaging',
        'missing_company',
        'unrealistic_pay',
        'link_shortener',
      ]),
    );
  });
});

describe('hire', () => {
  it('shortlists at least three strong matches and e-mails the same shortlist', async () => {
    const r = await call(emp.client, 'hire', {
      brief: 'We need a frontend engineer with React and TypeScript',
      company: 'Awan Studio',
      contact_email: 'people@awan.example',
    });
    expect(r.data.strongMatch).toBe(true);
    expect(r.data.threshold).toBe(75);
    expect(r.data.shortlist.length).toBeGreaterThanOrEqual(3);
    for (const s of r.data.shortlist) {
      expect(s.score).toBeGreaterThanOrEqual(75);
      expect(Object.keys(s).sort()).toEqual(['headline', 'id', 'region', 'score', 'skills']);
      expect(byId(s.id).consent && byId(s.id).openToWork).toBe(true);
    }
    const mail = (await admin()('GET', '/sandbox/v1/outbox?to=people@awan.example')).json.messages;
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ id: r.data.outboxMessageId, to: 'people@awan.example', kind: 'hire_shortlist' });
    expect(mail[0].data.shortlist).toEqual(r.data.shortlist);
    for (const s of r.data.shortlist) expect(mail[0].body).toContain(s.id);
  });

  it('says there is no strong match, and posts free only when asked', async () => {
    const args = {
      brief: 'Marine biologist to survey coral reefs around Raja Ampat, with scuba certification',
      company: 'Reef Watch Indonesia',
      contact_email: 'team@reefwatch.example',
    };
    const ask = await call(emp.client, 'hire', args);
    expect(ask.data).toMatchObject({ strongMatch: false, strongMatches: 0 });
    expect(ask.data.listing).toBeUndefined();
    expect(ask.data.message).toMatch(/publish_if_no_match/);
    expect((await admin()('GET', '/sandbox/v1/outbox?to=team@reefwatch.example')).json.messages).toEqual([]);

    const posted = await call(emp.client, 'hire', { ...args, publish_if_no_match: true });
    expect(posted.data.listing).toMatchObject({ status: 'live', applicantsForwardedTo: 'team@reefwatch.example' });
    expect(posted.data.listing.scamCheck.passed).toBe(true);
    expect(posted.data.message).toContain('forwarded to team@reefwatch.example');
    const page = await client(sb.get().baseUrl)('GET', new URL(posted.data.listing.url).pathname);
    expect(page.json.listing.listingId).toBe(posted.data.listing.listingId);
    const mail = (await admin()('GET', '/sandbox/v1/outbox?to=team@reefwatch.example')).json.messages;
    expect(mail.map((m: any) => m.kind)).toEqual(['listing_published']);
  });

  it('holds or rejects a free posting the scam check flags, naming the rules', async () => {
    const review = await call(emp.client, 'hire', {
      brief:
        'Remote typing work from home, contact our recruiter on Telegram to get started with simple tasks every day.',
      company: 'Global Jobs',
      contact_email: 'recruiter.globaljobs@gmail.com',
      publish_if_no_match: true,
    });
    expect(review.data.listing.status).toBe('manual_review');
    expect(review.data.listing.url).toBeNull();
    expect(review.data.listing.scamCheck.rules.map((x: any) => x.id).sort()).toEqual([
      'free_mail_contact',
      'personal_messaging',
    ]);
    const rejected = await call(emp.client, 'hire', {
      brief:
        'Crypto investment assistant. Guaranteed income, just pay a small deposit and send your KTP and bank account number.',
      company: 'private',
      contact_email: 'boss@yahoo.com',
      publish_if_no_match: true,
      pay_min: 50_000,
      pay_max: 80_000,
      pay_currency: 'USD',
      pay_period: 'month',
    });
    expect(rejected.data.listing.status).toBe('rejected');
    const ids = rejected.data.listing.scamCheck.rules.map((x: any) => x.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'crypto_investment',
        'upfront_fee',
        'personal_data_request',
        'missing_company',
        'free_mail_contact',
        'unrealistic_pay',
        'too_good_to_be_true',
      ]),
    );
    const kinds = (await admin()('GET', '/sandbox/v1/outbox?to=boss@yahoo.com')).json.messages.map((m: any) => m.kind);
    expect(kinds).toEqual(['listing_rejected']);
  });
});
