// hire: one call from a plain-words brief. With enough strong matches it returns an anonymized
// shortlist and e-mails the same shortlist to the contact; otherwise it says so, and with
// publish_if_no_match it posts the role free, live only when the scam check passes.
// Requirements: MCP-TOOL-12, MCP-TOOL-13, POL-MCP-6; decisions D-32, D-49.

import type { KeyedHireInput } from '../../contract/types.js';
import { invalid } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { Principal } from '../tenants.js';
import { isEligible, type Candidate } from './candidatePool.js';
import type { Outbox } from './outbox.js';
import { payOf } from './postJob.js';
import { listingView, type Postings } from './postings.js';
import { hireEntry } from './publicViews.js';
import { scamCheck } from './scamCheck.js';
import { rank } from './scoring.js';
import { criteriaView, parseCriteria, type Criteria } from './vocabulary.js';

export type HireArgs = KeyedHireInput;

export const SHORTLIST_MAX = 10;

function titleOf(args: HireArgs, c: Criteria): string {
  if (args.title?.trim()) return args.title.trim();
  if (c.roles.length) {
    const level = c.seniority && c.seniority !== 'mid' ? `${c.seniority[0].toUpperCase()}${c.seniority.slice(1)} ` : '';
    return `${level}${c.roles[0].name}`;
  }
  const words = args.brief
    .trim()
    .split(/\s+/)
    .slice(0, 8)
    .join(' ')
    .replace(/[,.;:]+$/, '');
  const title = `${words[0].toUpperCase()}${words.slice(1)}`;
  return title.length > 80 ? `${title.slice(0, 77)}...` : title;
}

export function hire(
  pool: readonly Candidate[],
  postings: Postings,
  outbox: Outbox,
  principal: Principal,
  args: HireArgs,
) {
  if (args.brief.trim().length < 10) throw invalid('brief must have at least 10 characters besides spaces', 'brief');
  if (args.company.trim() === '') throw invalid('company must not be blank', 'company');
  const criteria = parseCriteria({ query: args.brief });
  const threshold = limits.policy.hireStrongMatchScore;
  const need = limits.spec.hireMinStrongMatches;
  const strong =
    criteria.roles.length || criteria.skills.length
      ? rank(pool.filter(isEligible), criteria).filter((r) => r.fit.fit >= threshold)
      : [];
  const title = titleOf(args, criteria);
  const pay = payOf({ ...args, pay_currency: args.pay_currency ?? 'IDR', pay_period: args.pay_period ?? 'month' });
  const base = { strongMatches: strong.length, threshold, criteria: criteriaView(criteria) };
  const listing = {
    title,
    company: args.company.trim(),
    description: args.brief,
    applyUrl: null,
    hostedApplyForm: true,
    contactEmail: args.contact_email,
    location: criteria.location ? (criteria.location.city ?? criteria.location.region) : null,
    remoteType: null,
    jobType: null,
    pay,
  };
  // the brief is checked before anyone is shared: a brief that looks like a scam gets no shortlist (D-96)
  const check = scamCheck(listing);

  if (strong.length >= need && !check.passed) {
    const flagged = check.rules.map((r) => r.id).join(', ');
    return {
      strongMatch: false,
      ...base,
      scamCheck: { passed: false, score: check.score, verdict: check.verdict, rules: check.rules },
      message: `The brief was held by the scam check (${flagged}), so no shortlist was shared or e-mailed. Remove what the rules flag and call hire again.`,
    };
  }

  if (strong.length >= need) {
    const shortlist = strong.slice(0, SHORTLIST_MAX).map((r) => hireEntry(r.candidate, r.fit));
    const lines = shortlist.map(
      (s, i) => `${i + 1}. ${s.id} (score ${s.score}): ${s.headline}; ${s.region}; skills: ${s.skills.join(', ')}`,
    );
    const msg = outbox.send(principal.tenant.id, {
      to: args.contact_email,
      kind: 'hire_shortlist',
      subject: `${shortlist.length} strong matches for ${title} at ${args.company}`,
      body: [
        `Hello ${args.company} team,`,
        '',
        `These consented, open-to-work candidates match your brief with a score of ${threshold} or more:`,
        ...lines,
        '',
        'Reply with the ids you want to meet; we introduce you once the candidate agrees.',
      ].join('\n'),
      data: { tenantId: principal.tenant.id, title, company: args.company, shortlist },
    });
    return {
      strongMatch: true,
      ...base,
      shortlist,
      emailedTo: args.contact_email,
      outboxMessageId: msg.id,
      message: `${strong.length} candidates match strongly; the shortlist of ${shortlist.length} was e-mailed to ${args.contact_email}.`,
    };
  }

  if (!args.publish_if_no_match) {
    return {
      strongMatch: false,
      ...base,
      message: `Only ${strong.length} candidate(s) match with a score of ${threshold} or more (at least ${need} are needed for a shortlist). Ask the user whether to post the role for free; if yes, call hire again with publish_if_no_match: true.`,
    };
  }

  const created = postings.createListing(principal.tenant.id, listing, check);
  const view = listingView(created, postings.listingUrl(created.listingId));
  const flagged = check.rules.map((r) => r.id).join(', ');
  const statusLine = {
    live: `"${title}" is live at ${view.url}. Every applicant will be forwarded to ${args.contact_email}.`,
    manual_review: `"${title}" is waiting for manual review because the scam check flagged: ${flagged}. Once approved it goes live and every applicant will be forwarded to ${args.contact_email}.`,
    rejected: `"${title}" was rejected by the scam check (${flagged}) and will not be published.`,
  }[created.status];
  outbox.send(principal.tenant.id, {
    to: args.contact_email,
    kind:
      created.status === 'live'
        ? 'listing_published'
        : created.status === 'manual_review'
          ? 'listing_review'
          : 'listing_rejected',
    subject: `Your free listing "${title}": ${created.status.replace('_', ' ')}`,
    body: `Hello ${args.company} team,\n\n${statusLine}\n`,
    data: { tenantId: principal.tenant.id, listing: view },
  });
  return {
    strongMatch: false,
    ...base,
    listing: view,
    message: `No strong match (${strong.length} of the ${need} needed), so the role was posted free. ${statusLine}`,
  };
}
