// Employer tools of the keyed MCP server: anonymized shortlists, talent search, job-post orders and hire.
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { fail } from './http.js';
import type { KeyedContext } from './mcp-keyed.js';
import { guard } from './mcp-results.js';
import { rank, type Talent, type TalentQuery } from './talent.js';

export const TALENT_SEARCH_PER_DAY = 50;
/** talent_search's daily allowance under the `talent-limit-60` violation. */
const TALENT_SEARCH_VIOLATED = 60;
const STRONG_FIT = 70;
const PRICES_IDR = { standard: 600_000, featured: 1_500_000, pilot: 0 } as const;
const SCAM_WORDS = ['upfront fee', 'registration fee', 'crypto', 'wire transfer', 'guaranteed income'];

export interface EmployerState {
  pool: Talent[];
  outbox: { to: string; subject: string; body: string }[];
  listings: { id: string; title: string; status: 'live' | 'held_for_review'; forwardTo: string }[];
}

const queryShape = {
  query: z.string().optional(),
  skills: z.array(z.string()).optional(),
  roles: z.array(z.string()).optional(),
};

function needOne(q: TalentQuery): void {
  if (!q.query?.trim() && !q.skills?.length && !q.roles?.length)
    throw fail(400, 'query: give at least one of query, skills or roles');
}

const yearsBand = (y: number) => (y < 3 ? '0-2' : y < 6 ? '3-5' : y < 10 ? '6-9' : '10+');

export function registerEmployerTools(mcp: McpServer, c: KeyedContext): void {
  const { tenant: t, employer: e, v } = c;
  const perDay = v.on('talent-limit-60') ? TALENT_SEARCH_VIOLATED : TALENT_SEARCH_PER_DAY;
  const employer = () => {
    if (!t.scopes.has('employer')) throw fail(403, 'this key lacks the "employer" scope');
  };

  mcp.registerTool(
    'match_candidates',
    {
      description:
        'Ranked, anonymized shortlist of consented, open-to-work candidates. Needs one of query, skills, roles.',
      inputSchema: { ...queryShape, limit: z.number().int().min(1).max(25).optional() },
    },
    (a) =>
      guard(() => {
        employer();
        needOne(a);
        const ranked = rank(e.pool, a)
          .filter((r) => r.fit.total >= 20)
          .slice(0, a.limit ?? 10);
        return {
          candidates: ranked.map(({ t: x, fit }) => ({
            id: x.code,
            profile: { roleFamily: x.family, yearsBand: yearsBand(x.years), region: x.region },
            relevance: fit.total,
            ...(v.on('match-leaks-email') ? { email: `${x.code}@talent.alt-jobs.example.org` } : {}),
            facts: {
              workAuthorization: x.workAuthorization,
              needsSponsorship: x.needsSponsorship,
              noticeWeeks: x.noticeWeeks,
              skillYears: Object.fromEntries(x.skills.map((s) => [s.name, s.years])),
            },
          })),
        };
      }),
  );

  mcp.registerTool(
    'talent_search',
    {
      description: `Plain-words talent search: a match count and up to 10 anonymized cards. ${TALENT_SEARCH_PER_DAY} calls a day per key.`,
      inputSchema: queryShape,
    },
    (a) =>
      guard(() => {
        employer();
        needOne(a);
        const day = new Date().toISOString().slice(0, 10);
        if (t.talentSearchDay.day !== day) t.talentSearchDay = { day, count: 0 };
        if (t.talentSearchDay.count >= perDay)
          throw fail(429, `talent_search is limited to ${perDay} calls a day per key`);
        t.talentSearchDay.count++;
        const ranked = rank(e.pool, a);
        let found = ranked.filter((r) => r.fit.total >= 50);
        const widened = found.length < 3;
        if (widened) found = ranked.filter((r) => r.fit.total >= 20);
        return {
          matchCount: found.length,
          widened,
          cards: found.slice(0, v.on('talent-12-cards') ? 12 : 10).map(({ t: x, fit }) => ({
            code: x.code,
            role: x.headline,
            years: x.years,
            topSkills: x.skills.slice(0, 3).map((s) => s.name),
            city: x.city,
            fit: fit.total,
            breakdown: { role: fit.role, skills: fit.skill, experience: fit.experience },
            tier: fit.total >= 75 ? 'exact' : fit.total >= 50 ? 'close' : 'broader',
          })),
        };
      }),
  );

  mcp.registerTool(
    'post_job',
    {
      description:
        'Create a job-post order and get a checkout link in IDR. Defaults to the standard tier; the free pilot goes to manual review. apply_url is required unless host_apply_form is true.',
      inputSchema: {
        title: z.string().min(1),
        company: z.string().min(1),
        description: z.string().optional(),
        apply_url: z.string().url().optional(),
        host_apply_form: z.boolean().optional(),
        tier: z.enum(['standard', 'featured', 'pilot']).optional(),
      },
    },
    (a) =>
      guard(() => {
        employer();
        if (!a.apply_url && !a.host_apply_form && !v.on('post-job-no-apply-url'))
          throw fail(400, 'apply_url: required unless host_apply_form is true');
        const tier = a.tier ?? 'standard';
        const orderId = `ord_${randomUUID()}`;
        return {
          orderId,
          tier,
          status: tier === 'pilot' ? 'manual_review' : 'awaiting_payment',
          price: { currency: 'IDR', amount: PRICES_IDR[tier] },
          checkoutUrl: tier === 'pilot' ? null : `https://checkout.pay-processor.example/c/${orderId}?currency=IDR`,
        };
      }),
  );

  mcp.registerTool(
    'hire',
    {
      description:
        'One call from a plain-words brief: with 3 or more strong matches, an anonymized shortlist e-mailed to contact_email; otherwise no strong match (publish_if_no_match posts the role free).',
      inputSchema: {
        brief: z.string().min(1),
        company: z.string().min(1),
        contact_email: z.string().email(),
        publish_if_no_match: z.boolean().optional(),
      },
    },
    (a) =>
      guard(() => {
        employer();
        const strong = rank(e.pool, { query: a.brief }).filter((r) => r.fit.total >= STRONG_FIT);
        if (strong.length >= 3) {
          const shortlist = strong.slice(0, 5).map(({ t: x, fit }) => ({
            id: x.code,
            headline: x.headline,
            region: x.region,
            skills: x.skills.map((s) => s.name),
            ...(v.on('hire-unscored') ? {} : { score: fit.total }),
          }));
          e.outbox.push({
            to: a.contact_email,
            subject: `Shortlist for ${a.company}`,
            body: JSON.stringify(shortlist),
          });
          return { outcome: 'shortlist', shortlist, emailedTo: a.contact_email };
        }
        const result: Record<string, unknown> = {
          outcome: 'no_strong_match',
          message: 'No strong match among consented candidates.',
          strongMatches: strong.length,
        };
        if (a.publish_if_no_match && !v.on('hire-publish-ignored')) {
          const scam = SCAM_WORDS.some((w) => a.brief.toLowerCase().includes(w));
          const listing = {
            id: `fl_${randomUUID().slice(0, 8)}`,
            title: a.brief.slice(0, 80),
            status: scam ? ('held_for_review' as const) : ('live' as const),
            forwardTo: a.contact_email,
          };
          e.listings.push(listing);
          result.listing = {
            listingId: listing.id,
            status: listing.status,
            applicantsForwardedTo: a.contact_email,
            price: { currency: 'IDR', amount: 0 },
          };
        }
        return result;
      }),
  );
}
