// draft_application over the keyed MCP server: drafts from the key owner's saved resume, the grounding
// check (unsupported claims removed or the call fails ungrounded), reply-to addresses and the monthly
// quota per tier.

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILLS } from '../src/domain/employer/vocabulary.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { call, connectMcp, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 400 });
const url = () => `${sb.get().baseUrl}/api/mcp`;
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);
const ayu = JSON.parse(readFileSync(new URL('../fixtures/resumes-seekers/rsm_ayu.json', import.meta.url), 'utf8'));
const ayuText = JSON.stringify(ayu);

let pro: Connected;
let jobs: { id: string; applyUrl: string; title: string; company: string }[];

beforeAll(async () => {
  const demoPro = sb.get().core.demo!.tenants.find((t) => t.name === 'Demo Pro')!;
  pro = await connectMcp(url(), demoPro.apiKey);
  jobs = (await call(pro.client, 'search_jobs', { q: 'backend engineer', limit: 5 })).data.jobs;
});
afterAll(async () => {
  await pro?.close();
});

describe('draft_application', () => {
  it('drafts a letter and a tailored resume from the saved resume, submits nothing', async () => {
    const job = jobs[0];
    const r = await call(pro.client, 'draft_application', { id: job.id });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ jobId: job.id, jobTitle: job.title, company: job.company, apply_url: job.applyUrl, submitted: false, tone: 'professional' });
    expect(r.data.coverLetter).toContain(job.company);
    expect(r.data.coverLetter).toContain(ayu.name);
    expect(r.data.coverLetter).toContain(ayu.experience[0].employer);
    expect(r.data.resumeText).toContain(ayu.name.toUpperCase());
    for (const e of ayu.experience) expect(r.data.resumeText).toContain(`${e.title}, ${e.employer}`);
    expect(r.data.claims.removed).toBe(0);
    expect(r.data.removedClaims).toEqual([]);
    expect(r.data.next).toMatch(/apply_url/);
  });

  it('gives paid tiers a stable reply-to address per job, and the free tier none', async () => {
    const a1 = (await call(pro.client, 'draft_application', { id: jobs[0].id })).data.replyTo;
    const a2 = (await call(pro.client, 'draft_application', { id: jobs[0].id, tone: 'concise' })).data.replyTo;
    const b = (await call(pro.client, 'draft_application', { id: jobs[1].id })).data.replyTo;
    expect(a1).toMatch(/^reply\+[0-9a-z]{20}@replies\.remote-jobs\.example$/);
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    const free = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'free' })).apiKey);
    try {
      expect((await call(free.client, 'draft_application', { id: jobs[0].id })).data.replyTo).toBeNull();
    } finally {
      await free.close();
    }
  });

  it('removes unsupported highlights and lists them with reasons', async () => {
    const r = await call(pro.client, 'draft_application', {
      id: jobs[0].id,
      highlights: ['Moved 12 services from a monolith to Kubernetes', '10 years of Rust at Google', 'Head of Engineering for 40 people', 'Mentored 3 junior engineers'],
    });
    expect(r.isError).toBe(false);
    expect(r.data.coverLetter).toContain('- Moved 12 services from a monolith to Kubernetes.');
    expect(r.data.coverLetter).toContain('- Mentored 3 junior engineers.');
    expect(r.data.coverLetter).not.toMatch(/Google|Rust|Head of/);
    const removed = Object.fromEntries(r.data.removedClaims.map((c: any) => [c.claim, c]));
    expect(Object.keys(removed).sort()).toEqual(['10 years of Rust at Google.', 'Head of Engineering for 40 people.']);
    expect(removed['10 years of Rust at Google.'].reasons.join(' ')).toMatch(/Google/);
    expect(removed['Head of Engineering for 40 people.'].reasons.join(' ')).toMatch(/head title|40/);
    expect(r.data.claims).toMatchObject({ removed: 2 });
    expect(r.data.claims.kept).toBe(r.data.claims.checked - 2);
  });

  it('fails ungrounded when nothing requested can be supported, or in strict mode', async () => {
    const before = (await call(pro.client, 'draft_application', { id: jobs[0].id })).data.quota.used;
    const none = await call(pro.client, 'draft_application', { id: jobs[0].id, highlights: ['PhD in astrophysics from MIT', 'I am a world-class pianist'] });
    expect(none.isError).toBe(true);
    expect(none.data.error).toMatchObject({ code: 'ungrounded', argument: 'highlights' });
    expect(none.data.error.message).toMatch(/PhD/);
    const strict = await call(pro.client, 'draft_application', { id: jobs[0].id, strict: true, highlights: ['Mentored 3 junior engineers', '15 years of Go'] });
    expect(strict.data.error.code).toBe('ungrounded');
    expect(strict.data.error.message).toMatch(/15 years of Go/);
    const clean = await call(pro.client, 'draft_application', { id: jobs[0].id, strict: true, highlights: ['Mentored 3 junior engineers'] });
    expect(clean.isError).toBe(false);
    // refused drafts use no quota
    expect(clean.data.quota.used).toBe(before + 1);
  });

  it('keeps only claims the resume backs, whatever the highlights (property)', async () => {
    const phrase = fc.oneof(
      fc.constantFrom(...ayu.experience.flatMap((e: any) => e.highlights) as string[]),
      fc.tuple(fc.integer({ min: 1, max: 30 }), fc.constantFrom(...SKILLS)).map(([n, s]) => `${n} years of ${s}`),
      fc.constantFrom('Led the platform team at Gojek', 'Master of Science in Data Science', 'Principal engineer', 'I love clean code', 'Built dashboards'),
    );
    const heldSkills = new Set([...ayu.skills.map((s: any) => s.name), ...ayu.languages].map((s: string) => s.toLowerCase()));
    const resumeNumbers = new Set(ayuText.match(/\d+/g));
    await fc.assert(
      fc.asyncProperty(fc.array(phrase, { minLength: 1, maxLength: 4 }), async (highlights) => {
        const r = await call(pro.client, 'draft_application', { id: jobs[2].id, highlights });
        if (r.isError) {
          expect(r.data.error.code).toBe('ungrounded');
          return;
        }
        const letter: string = r.data.coverLetter;
        const body = letter.slice(letter.indexOf('\n'), letter.lastIndexOf('\n\n'));
        for (const n of body.match(/\d+/g) ?? []) expect(resumeNumbers.has(n), `number ${n} in ${body}`).toBe(true);
        for (const skill of SKILLS) {
          const re = new RegExp(`(?<![\\w.+#/-])${skill.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w+#])`, skill.length <= 2 ? '' : 'i');
          if (re.test(body.replace(jobs[2].title, ''))) expect(heldSkills.has(skill.toLowerCase()), `${skill} in ${body}`).toBe(true);
        }
        expect(body).not.toMatch(/Gojek|Master of Science|Principal/);
      }),
      { numRuns: 25 },
    );
  });

  it('answers not_found for an unknown or inactive job, using no quota', async () => {
    const r = await call(pro.client, 'draft_application', { id: 'job_nope' });
    expect(r.data.error.code).toBe('not_found');
  });
});

describe('monthly quota', () => {
  it('gives the free tier 5 drafts a month, then payment_required with an upgrade link', async () => {
    const free = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'free' })).apiKey);
    try {
      for (let i = 1; i <= 5; i++) expect((await call(free.client, 'draft_application', { id: jobs[0].id })).data.quota.used).toBe(i);
      const over = await call(free.client, 'draft_application', { id: jobs[0].id });
      expect(over.data.error.code).toBe('payment_required');
      expect(over.data.error.upsell.upgradeUrl).toMatch(/^https:/);
    } finally {
      await free.close();
    }
  });

  it('gives starter 50 a month, then rate_limited until the month resets', async () => {
    const starter = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'starter' })).apiKey);
    try {
      const now = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
      const d = new Date(now);
      if (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - now < 600_000) await admin()('POST', '/sandbox/v1/clock/advance', { seconds: 900 });
      let last: any;
      for (let i = 1; i <= 50; i++) last = await call(starter.client, 'draft_application', { id: jobs[i % jobs.length].id });
      expect(last.data.quota).toMatchObject({ used: 50, limit: 50, remaining: 0 });
      const over = await call(starter.client, 'draft_application', { id: jobs[0].id });
      expect(over.data.error.code).toBe('rate_limited');
      const resetAt = Date.parse(last.data.quota.resetAt);
      const clockNow = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
      expect(Math.abs(over.data.error.retryAfter - (resetAt - clockNow) / 1000)).toBeLessThan(5);
      await admin()('POST', '/sandbox/v1/clock/advance', { seconds: over.data.error.retryAfter });
      const next = await call(starter.client, 'draft_application', { id: jobs[0].id });
      expect(next.data.quota.used).toBe(1);
    } finally {
      await starter.close();
    }
  });
});
