// draft_application: a cover letter and a plain-text resume built only from claims the saved resume supports.
import type { CorpusJob } from './corpus.js';
import { fail } from './http.js';
import type { Tier } from './jobs-domain.js';
import { toolError } from './mcp-results.js';
import type { Tenant } from './tenants.js';

export const DRAFT_QUOTA: Record<Tier, number> = { Free: 3, Starter: 30, Pro: 100 };

/** A claim is supported when it names a skill of the resume and claims no more years than the resume holds. */
function supported(claim: string, t: Tenant): boolean {
  const text = claim.toLowerCase();
  const skill = t.resume.skills.find((s) => text.includes(s.name.toLowerCase()));
  if (!skill) return false;
  const years = /(\d+)\s*\+?\s*(years?|yrs?|tahun)/.exec(text);
  return !years || Number(years[1]) <= skill.years;
}

export function draft(
  t: Tenant,
  tier: Tier,
  job: CorpusJob,
  highlights: string[] | undefined,
  tone: 'formal' | 'friendly' = 'formal',
  keepAll = false,
) {
  const month = new Date().toISOString().slice(0, 7);
  if (t.draftMonth !== month) {
    t.draftMonth = month;
    t.draftsThisMonth = 0;
  }
  if (t.draftsThisMonth >= DRAFT_QUOTA[tier])
    throw fail(429, `the monthly draft quota of ${DRAFT_QUOTA[tier]} is used up`);
  const claims = highlights ?? t.resume.skills.map((s) => `${s.years} years of ${s.name}`);
  const kept = claims.filter((c) => keepAll || supported(c, t));
  const removed = claims.filter((c) => !kept.includes(c));
  if (kept.length === 0) {
    return toolError('ungrounded', 'none of the claims can be supported by your saved resume', {
      removedClaims: removed,
    });
  }
  t.draftsThisMonth++;
  const greet = tone === 'friendly' ? `Hi ${job.company} team,` : `Dear ${job.company} hiring team,`;
  const cover = [
    greet,
    '',
    `I would like to apply for the ${job.title} role.`,
    ...kept.map((k) => `- ${k}`),
    '',
    'Kind regards',
  ].join('\n');
  const resume = [
    t.resume.headline,
    '',
    'Skills:',
    ...t.resume.skills.map((s) => `  ${s.name}: ${s.years} years`),
  ].join('\n');
  return {
    jobId: job.id,
    coverLetter: cover,
    resumeText: resume,
    apply_url: job.applyUrl,
    ...(tier === 'Free' ? {} : { replyTo: `reply+${job.id}.${t.id}@mail.alt-jobs.example.org` }),
    removedClaims: removed,
    quota: { used: t.draftsThisMonth, perMonth: DRAFT_QUOTA[tier] },
  };
}
