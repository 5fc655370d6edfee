// draft_application over the keyed MCP server: drafts from the key owner's saved resume, the grounding
// check (unsupported claims removed or the call fails ungrounded), reply-to addresses and the monthly
// quota per tier.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILLS, termPattern } from '../src/domain/employer/vocabulary.js';
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
    expect(r.data).toMatchObject({
      jobId: job.id,
      jobTitle: job.title,
      company: job.company,
      apply_url: job.applyUrl,
      submitted: false,
      tone: 'professional',
    });
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
      highlights: [
        'Moved 12 services from a monolith to Kubernetes',
        '10 years of Rust at Google',
        'Head of Engineering for 40 people',
        'Mentored 3 junior engineers',
      ],
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
    const none = await call(pro.client, 'draft_application', {
      id: jobs[0].id,
      highlights: ['PhD in astrophysics from MIT', 'I am a world-class pianist'],
    });
    expect(none.isError).toBe(true);
    expect(none.data.error).toMatchObject({ code: 'ungrounded', argument: 'highlights' });
    expect(none.data.error.message).toMatch(/PhD/);
    const strict = await call(pro.client, 'draft_application', {
      id: jobs[0].id,
      strict: true,
      highlights: ['Mentored 3 junior engineers', '15 years of Go'],
    });
    expect(strict.data.error.code).toBe('ungrounded');
    expect(strict.data.error.message).toMatch(/15 years of Go/);
    const clean = await call(pro.client, 'draft_application', {
      id: jobs[0].id,
      strict: true,
      highlights: ['Mentored 3 junior engineers'],
    });
    expect(clean.isError).toBe(false);
    // refused drafts use no quota
    expect(clean.data.quota.used).toBe(before + 1);
  });

  it('keeps only claims the resume backs, whatever the highlights (property)', async () => {
    const phrase = fc.oneof(
      fc.constantFrom(...(ayu.experience.flatMap((e: any) => e.highlights) as string[])),
      fc.tuple(fc.integer({ min: 1, max: 30 }), fc.constantFrom(...SKILLS)).map(([n, s]) => `${n} years of ${s}`),
      fc.constantFrom(
        'Led the platform team at Gojek',
        'Master of Science in Data Science',
        'Principal engineer',
        'I love clean code',
        'Built dashboards',
      ),
    );
    const heldSkills = new Set(
      [...ayu.skills.map((s: any) => s.name), ...ayu.languages].map((s: string) => s.toLowerCase()),
    );
    const resumeNumbers = new Set(ayuText.match(/\d+/g));
    const skillYears = new Map<string, number>(ayu.skills.map((s: any) => [s.name.toLowerCase(), s.years]));
    await fc.assert(
      fc.asyncProperty(fc.array(phrase, { minLength: 1, maxLength: 4 }), async (highlights) => {
        const r = await call(pro.client, 'draft_application', { id: jobs[2].id, highlights });
        if (r.isError) {
          expect(r.data.error.code).toBe('ungrounded');
          return;
        }
        const letter: string = r.data.coverLetter;
        const body = letter.slice(letter.indexOf('\n'), letter.lastIndexOf('\n\n'));
        // D-47: claiming fewer years of a held skill than the resume shows is supported; any other number
        // must appear in the resume.
        const understated = body.replace(
          /\b(\d+) years? of ([A-Za-z][\w .+#/-]*?)(?=[.,;\n]|$)/g,
          (m, n: string, skill: string) => {
            const years = skillYears.get(skill.trim().toLowerCase());
            return years !== undefined && Number(n) <= years ? '' : m;
          },
        );
        for (const n of understated.match(/\d+/g) ?? [])
          expect(resumeNumbers.has(n), `number ${n} in ${body}`).toBe(true);
        for (const skill of SKILLS) {
          const re = new RegExp(
            `(?<![\\w.+#/-])${skill.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w+#])`,
            skill.length <= 2 ? '' : 'i',
          );
          if (re.test(body.replace(jobs[2].title, '')))
            expect(heldSkills.has(skill.toLowerCase()), `${skill} in ${body}`).toBe(true);
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

// Every saved seeker resume, reached the way a caller reaches it: through the key that owns it.
const SEEKERS = new URL('../fixtures/resumes-seekers/', import.meta.url);
const seekerResumes: any[] = readdirSync(SEEKERS)
  .filter((f) => /^rsm_.*\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(new URL(f, SEEKERS), 'utf8')));
const asSentence = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

/** Claims one resume cannot back, each dressed in that resume's own years, titles, school and highlights. */
function inventedFor(r: any): { text: string; marker: string }[] {
  const text = JSON.stringify(r);
  const [year] = text.match(/\b20\d\d\b/)!;
  const numbers = new Set(text.match(/\d+/g));
  const counted = r.experience.flatMap((e: any) => e.highlights).find((h: string) => /\d/.test(h));
  let fresh = 707;
  while (numbers.has(String(fresh))) fresh++;
  const unheld = SKILLS.find((s) => s.length > 3 && !termPattern(s).test(text))!;
  return [
    { text: `Won the Nobel Prize in Physics in ${year} for quantum basket weaving`, marker: 'Nobel' },
    { text: `${r.experience[0].highlights[0]} at Netflix`, marker: 'Netflix' },
    {
      text: `Hold a PhD in ${r.education[0].degree.replace(/^\S+\s+in\s+/, '')} from ${r.education[0].school}`,
      marker: 'PhD',
    },
    { text: counted.replace(/\d+/, String(fresh)), marker: String(fresh) },
    { text: `${r.experience[0].highlights[0]} using ${unheld}`, marker: unheld },
  ];
}

describe('grounding across every saved resume', () => {
  const owners: { resume: any; mcp: Connected }[] = [];
  let variedJobs: { id: string; title: string; company: string }[] = [];

  beforeAll(async () => {
    for (const q of ['designer', 'support', 'data', 'marketing', 'frontend'])
      variedJobs.push(...(await call(pro.client, 'search_jobs', { q, limit: 3 })).data.jobs);
    variedJobs = [...jobs, ...variedJobs];
    // resumes are handed out by tenant id; new tenants are made until every saved resume has an owner
    const byName = new Map(seekerResumes.map((r) => [r.name, r]));
    for (let i = 0; i < 120 && owners.length < seekerResumes.length; i++) {
      const mcp = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey);
      const letter: string = (await call(mcp.client, 'draft_application', { id: jobs[0].id })).data.coverLetter;
      const resume = byName.get(letter.trim().split('\n').pop()!);
      if (resume && !owners.some((o) => o.resume.id === resume.id)) owners.push({ resume, mcp });
      else await mcp.close();
    }
  });
  afterAll(async () => {
    await Promise.all(owners.map((o) => o.mcp.close()));
  });

  it('reaches every saved resume', () => {
    expect(owners.map((o) => o.resume.id).sort()).toEqual(seekerResumes.map((r) => r.id).sort());
  });

  it('fails ungrounded on an invented award alone, even one dated with a year from the resume', async () => {
    for (const { resume, mcp } of owners) {
      const r = await call(mcp.client, 'draft_application', {
        id: jobs[0].id,
        highlights: [inventedFor(resume)[0].text],
      });
      expect(r.data.error?.code, resume.id).toBe('ungrounded');
    }
  });

  it('removes every invented claim and keeps every backed one, whichever resume the key owns (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: seekerResumes.length - 1 }),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('professional', 'friendly', 'concise'),
        fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 3 }),
        async (who, jobPick, backedPick, tone, picks) => {
          const { resume, mcp } = owners[who];
          const job = variedJobs[jobPick % variedJobs.length];
          const invented = [...new Set(picks)].map((i) => inventedFor(resume)[i]);
          const backedHighlights = resume.experience.flatMap((e: any) => e.highlights);
          const kept = backedHighlights[backedPick % backedHighlights.length];
          const r = await call(mcp.client, 'draft_application', {
            id: job.id,
            tone,
            highlights: [...invented.map((c) => c.text), kept],
          });
          expect(r.isError, JSON.stringify(r.data.error)).toBe(false);
          const out = `${r.data.coverLetter}\n${r.data.resumeText}`
            .split(job.title)
            .join(' ')
            .split(job.company)
            .join(' ');
          for (const c of invented) {
            expect(out, `${resume.id}: ${c.text}`).not.toContain(asSentence(c.text).slice(0, -1));
            expect(termPattern(c.marker).test(out), `${resume.id}: ${c.marker} left in the draft`).toBe(false);
            expect(r.data.removedClaims).toContainEqual(
              expect.objectContaining({ claim: asSentence(c.text), source: 'highlight' }),
            );
          }
          expect(r.data.coverLetter).toContain(`- ${asSentence(kept)}`);
          expect(r.data.removedClaims.filter((c: any) => c.source !== 'highlight')).toEqual([]);
          expect(r.data.claims.removed).toBe(invented.length);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('monthly quota', () => {
  it('gives the free tier 5 drafts a month, then payment_required with an upgrade link', async () => {
    const free = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'free' })).apiKey);
    try {
      for (let i = 1; i <= 5; i++)
        expect((await call(free.client, 'draft_application', { id: jobs[0].id })).data.quota.used).toBe(i);
      const over = await call(free.client, 'draft_application', { id: jobs[0].id });
      expect(over.data.error.code).toBe('payment_required');
      expect(over.data.error.upsell.upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
    } finally {
      await free.close();
    }
  });

  it('gives starter 50 a month, then rate_limited until the month resets', async () => {
    const starter = await connectMcp(url(), (await createTenant(sb.get().baseUrl, { planTier: 'starter' })).apiKey);
    try {
      const now = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
      const d = new Date(now);
      if (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - now < 600_000)
        await admin()('POST', '/sandbox/v1/clock/advance', { seconds: 900 });
      let last: any;
      for (let i = 1; i <= 50; i++)
        last = await call(starter.client, 'draft_application', { id: jobs[i % jobs.length].id });
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
