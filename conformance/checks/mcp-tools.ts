// The keyed server's drafting and employer tools, through the behaviour the document names: drafts
// return an apply URL and submit nothing; match_candidates and talent_search need a query, skills or
// roles, score 0–100, cap talent cards at 10 and never return personal data; post_job needs an
// apply_url unless the form is hosted and answers an IDR checkout order.

import type { Check, CheckContext } from '../check.js';
import { skip, violation, Violation } from '../failure.js';
import type { TenantHandle } from '../target/tenants.js';
import { movedBy, watchClock } from './clock-watch.js';
import { someJobs } from './jobs-apply.js';
import { leaves, leavesOutside, mainRecordList, normKey, numbersNamed, urlsOf, valueNamed } from './open-shape.js';
import { expectNoCharge, readWallet } from './wallet.js';
import { connect, failed, toolPayload } from './mcp-support.js';

/** Keys (any convention: `full_name`, `fullName`, `full-name`) that would carry personal data an anonymized result must never hold. */
const PERSONAL = new Set([
  'name',
  'fullname',
  'firstname',
  'lastname',
  'email',
  'phone',
  'contact',
  'cv',
  'cvtext',
  'resume',
  'salary',
  'salaryexpectation',
]);

function personalKeys(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => personalKeys(x, `${path}[${i}]`));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [
      ...(PERSONAL.has(normKey(k)) ? [`${path}.${k}`] : []),
      ...personalKeys(x, `${path}.${k}`),
    ]);
  return [];
}

const inRange = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 100;

/**
 * Where a record's 0–100 score is out of range, as far as an open shape shows it: a number under the
 * document's own word for it (`fit`, `relevance`, `score`, in any key convention) must be 0–100, and the
 * record must carry some 0–100 number at all. Null when neither is broken.
 */
export function scoreProblem(record: Record<string, unknown>, words: readonly string[]): string | null {
  const named = numbersNamed(record, words).filter((n) => !inRange(n));
  if (named.length) return `a ${words[0]} of ${named[0]}, not 0–100`;
  if (!leaves(record).some((l) => inRange(l.value))) return 'no 0–100 number at all';
  return null;
}

/** The talent-card tier words of the document. */
const CARD_TIERS = ['exact', 'close', 'broader'];

/**
 * What is wrong with a talent_search result, read without field names: the cards are its main list of
 * records (never a list inside a card), at most 10; a match count is a whole number outside the cards;
 * every card names a tier exact, close or broader and carries a 0–100 fit. Null when nothing is.
 */
export function talentProblem(p: unknown): string | null {
  const cards = mainRecordList(p);
  if (cards === null) return 'talent_search returned no list of cards';
  if (cards.length > 10) return `talent_search returned ${cards.length} cards (at most 10)`;
  if (!leavesOutside(p, cards).some((l) => Number.isInteger(l.value) && (l.value as number) >= 0))
    return 'talent_search returned no match count (no whole number beside its cards)';
  for (const c of cards) {
    const tiers = leaves(c).flatMap((l) =>
      typeof l.value === 'string' && CARD_TIERS.includes(l.value.trim().toLowerCase()) ? [l.value] : [],
    );
    if (!tiers.length) return `a talent card ${JSON.stringify(c).slice(0, 160)} names no tier exact, close or broader`;
    const fit = scoreProblem(c, ['fit', 'fitscore']);
    if (fit) return `a talent card ${JSON.stringify(c).slice(0, 160)} has ${fit}: fit is 0–100`;
  }
  return null;
}

/**
 * How a hire result reads, without field names: a shortlist is its main list of records (never a list
 * inside a candidate, such as each candidate's skills); 3 or more is a shortlist, none is the "no strong
 * match" answer, 1 or 2 is neither.
 */
export const shortlistOf = (p: unknown): Record<string, unknown>[] => mainRecordList(p) ?? [];

const drafting: Check = {
  id: 'mcp.tools.draft',
  title: 'draft_application returns an apply_url and a draft, submits nothing and spends no apply credit',
  requirements: ['MCP-TOOL-4'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('starter');
    const [jobId] = await someJobs(ctx, t.apiKey, 1);
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a starter key');
    try {
      const before = await readWallet(ctx, t.apiKey);
      const r = await s.callTool('draft_application', { id: jobId });
      if (failed(r))
        throw violation(
          'MCP-TOOL-4',
          `draft_application failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
          r.exchange,
        );
      const p = toolPayload(r.result);
      // `apply_url` is the document's name; where it sits in the result is not shown
      if (typeof valueNamed(p, 'apply_url') !== 'string')
        throw violation('MCP-TOOL-4', 'draft_application returned no apply_url', r.exchange);
      // a result saying `submitted: true` (at any depth) contradicts "nothing is submitted"
      if (valueNamed(p, 'submitted') === true)
        throw violation(
          'MCP-TOOL-4',
          'draft_application says it submitted the application; drafts submit nothing',
          r.exchange,
        );
      await expectNoCharge(ctx, t.apiKey, before, 'MCP-TOOL-4', 'draft_application', r.exchange);
    } finally {
      await s.close();
    }
  },
};

const employer: Check = {
  id: 'mcp.tools.employer',
  title:
    'Employer tools: a query, skills or roles is required; scores are 0–100; talent cards are at most 10; no personal data; post_job needs apply_url unless the form is hosted',
  requirements: ['MCP-TOOL-8', 'MCP-TOOL-9', 'MCP-TOOL-11'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a pro key');
    try {
      for (const [tool, req] of [
        ['match_candidates', 'MCP-TOOL-8'],
        ['talent_search', 'MCP-TOOL-9'],
      ] as const) {
        await ctx.failures.step(async () => {
          const none = await s.callTool(tool, {});
          if (!failed(none)) throw violation(req, `${tool} without query, skills or roles succeeded`, none.exchange);
          const r = await s.callTool(tool, {
            query: 'backend engineer with TypeScript and PostgreSQL',
            skills: ['TypeScript'],
          });
          if (failed(r))
            throw violation(
              req,
              `${tool} with a query failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
              r.exchange,
            );
          const p = toolPayload(r.result);
          const leak = personalKeys(p);
          if (leak.length)
            throw violation(req, `${tool} returned personal data fields: ${leak.slice(0, 5).join(', ')}`, r.exchange);
          // the results' field names are not shown: see talentProblem and scoreProblem
          if (tool === 'talent_search') {
            const problem = talentProblem(p);
            if (problem) throw violation(req, problem, r.exchange);
          } else {
            const list = mainRecordList(p);
            if (list === null) throw violation(req, 'match_candidates returned no list of candidates', r.exchange);
            for (const c of list) {
              const problem = scoreProblem(c, ['relevance', 'score', 'relevancescore']);
              if (problem)
                throw violation(
                  req,
                  `a match_candidates entry ${JSON.stringify(c).slice(0, 160)} has ${problem}: relevance is 0–100`,
                  r.exchange,
                );
            }
          }
        });
      }
      await ctx.failures.step(async () => {
        const base = {
          title: 'Conformance Backend Engineer',
          company: 'Conformance Co',
          description:
            'A role created by the conformance harness to check job-post orders; it describes backend work in detail.',
        };
        const noUrl = await s.callTool('post_job', base);
        if (!failed(noUrl))
          throw violation(
            'MCP-TOOL-11',
            'post_job without apply_url (and without host_apply_form) succeeded',
            noUrl.exchange,
          );
        const r = await s.callTool('post_job', { ...base, apply_url: 'https://careers.example.com/jobs/1' });
        if (failed(r))
          throw violation(
            'MCP-TOOL-11',
            `post_job with an apply_url failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
            r.exchange,
          );
        const p = toolPayload(r.result);
        // the result's shape is not shown: a checkout link is an http(s) URL other than the apply_url sent,
        // priced in IDR is the currency code among its values; the tier is read from the tier words
        const links = urlsOf(p).filter((u) => u !== 'https://careers.example.com/jobs/1');
        const words = leaves(p).flatMap((l) => (typeof l.value === 'string' ? [l.value.trim().toLowerCase()] : []));
        if (!links.length || !words.includes('idr'))
          throw violation('MCP-TOOL-11', 'post_job returned no checkout link priced in IDR', r.exchange);
        const other = words.find((w) => w === 'featured' || w === 'pilot');
        if (!words.includes('standard') && other)
          throw violation(
            'MCP-TOOL-11',
            `post_job without a tier made a '${other}' order; the default is Standard`,
            r.exchange,
          );
      });
    } finally {
      await s.close();
    }
  },
};

const grounding: Check = {
  id: 'mcp.tools.grounding',
  title:
    'draft_application never keeps a claim the saved resume cannot support: it removes it, or fails with `ungrounded`; strict mode and the monthly quota follow policy',
  requirements: ['MCP-TOOL-5', 'POL-MCP-5', 'POL-MCP-14', 'POL-MCP-15'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('free');
    const [jobId] = await someJobs(ctx, t.apiKey, 1);
    const claim = 'Won the Nobel Prize in Physics in 2019 for quantum basket weaving';
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a free key');
    try {
      let drafts = 0;
      for (const strict of [false, true]) {
        // `highlights` and `strict` are this sandbox's arguments (the documents name only `id`): another
        // deployment may refuse or ignore them, so only a kept claim or an `ungrounded` answer is a verdict
        const r = await s.callTool('draft_application', {
          id: jobId,
          highlights: [claim],
          ...(strict ? { strict } : {}),
        });
        const code = toolPayload(r.result)?.error?.code;
        if (!failed(r)) {
          drafts++;
          const p = toolPayload(r.result);
          if (/nobel/i.test(JSON.stringify(p)))
            throw violation(
              'MCP-TOOL-5',
              `draft_application${strict ? ' in strict mode' : ''} kept an unsupported claim (a Nobel Prize) in the draft`,
              r.exchange,
            );
          if (!ctx.capabilities.thisSandbox)
            ctx.unobserved(
              'MCP-TOOL-5',
              'the draft shows no unsupported claim, but the only way to offer one (a `highlights` argument) is not named by the documents: removed or ignored cannot be told apart',
            );
          if (strict)
            ctx.failures.add(
              'POL-MCP-15',
              'strict draft_application removed an unsupported claim instead of failing with ungrounded',
              r.exchange,
            );
        } else if (
          code !== 'ungrounded' &&
          !/ungrounded/.test(JSON.stringify(toolPayload(r.result) ?? r.rpcError ?? ''))
        ) {
          if (ctx.capabilities.thisSandbox)
            throw violation(
              'MCP-TOOL-5',
              `draft_application with an unsupported highlight failed with ${JSON.stringify(code ?? r.rpcError)}, neither removing the claim nor 'ungrounded'`,
              r.exchange,
            );
          ctx.unobserved(
            'MCP-TOOL-5',
            `draft_application refused the undocumented \`highlights\` argument (${JSON.stringify(code ?? r.rpcError).slice(0, 80)}): no unsupported claim could be offered`,
          );
          break;
        }
      }
      if (!t.fresh) return;
      // policy: five successful drafts a month on the free tier, then payment_required
      let last: Awaited<ReturnType<typeof s.callTool>> | null = null;
      while (drafts < 7) {
        last = await s.callTool('draft_application', { id: jobId });
        if (failed(last)) break;
        drafts++;
      }
      if (!last || !failed(last) || drafts !== 5)
        ctx.failures.add(
          'POL-MCP-5',
          `the free tier's draft quota let ${drafts} drafts through, not 5`,
          last?.exchange,
        );
      else if (toolPayload(last.result)?.error?.code !== 'payment_required')
        ctx.failures.add(
          'POL-MCP-14',
          `a free tenant past its draft quota gets ${JSON.stringify(toolPayload(last.result)?.error?.code ?? last.rpcError)}, not payment_required`,
          last.exchange,
        );
    } finally {
      await s.close();
    }
  },
};

/** 51 talent_search calls of one key: 50 answered on a fresh key, the 51st refused. */
async function talentDay(ctx: CheckContext, t: TenantHandle, fresh: boolean): Promise<void> {
  const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', `a ${t.tier} key`);
  try {
    for (let i = 1; i <= 51; i++) {
      const r = await s.callTool('talent_search', { skills: ['TypeScript'] });
      if (fresh && i <= 50 && failed(r))
        throw violation(
          'MCP-TOOL-10',
          `talent_search call ${i} of a fresh key was refused; 50 a day are allowed`,
          r.exchange,
        );
      // refused within 51 calls: the limit holds (how many the key used earlier today is unknown)
      if (!fresh && failed(r)) return;
      if (i === 51 && !failed(r))
        throw violation(
          'MCP-TOOL-10',
          `the 51st talent_search call of the day succeeded${fresh ? '' : ' (this run alone made 51)'}; the limit is 50 per key`,
          r.exchange,
        );
    }
  } finally {
    await s.close();
  }
}

const talentDaily: Check = {
  id: 'mcp.tools.talent-daily-limit',
  keysOnly: "spending a key's talent_search day (off with --no-rate-windows)",
  title:
    'talent_search allows 50 calls per key a day and refuses the 51st (checked on a fresh day of the target clock)',
  requirements: ['MCP-TOOL-10'],
  appliesTo: { surface: 'mcp' },
  late: true,
  async run(ctx) {
    const fresh = ctx.capabilities.clock && ctx.tenants.canProvision;
    // a fixed key's calls earlier today are unknown: only "refused by the 51st call" is observable, and
    // it spends that key's talent_search for the rest of the day (opt out with --no-rate-windows)
    if (!fresh && !ctx.config.rateWindows)
      throw skip("--no-rate-windows: a fixed key's talent_search day is not spent");
    // another client moving the target clock into a new day mid-walk lets the 51st call through: that walk
    // proves nothing, and is taken again with another fresh key (D-122)
    for (let attempt = 1; ; attempt++) {
      const t = fresh ? await ctx.tenants.fresh('pro') : await ctx.tenants.get('starter');
      const watch = fresh && ctx.control && t.tenantId ? await watchClock(ctx.control, t.tenantId) : null;
      try {
        await talentDay(ctx, t, fresh);
        return;
      } catch (err) {
        const foreign = err instanceof Violation && watch ? await watch.foreignMs() : 0;
        if (foreign === 0) throw err;
        if (attempt === 3)
          return ctx.unobserved(
            'MCP-TOOL-10',
            `${movedBy(foreign)}, in each of 3 walks of a key's talent_search day: the day cannot be judged while another client moves the clock`,
          );
      }
    }
  },
};

const hire: Check = {
  id: 'mcp.tools.hire',
  title:
    'hire answers a strong-match shortlist (at least 3 anonymized candidates scored 0–100, emailed to contact_email) or says there is no strong match; with publish_if_no_match it posts the role',
  requirements: ['MCP-TOOL-12', 'MCP-TOOL-13', 'POL-MCP-6'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a pro key');
    const base = { company: 'Conformance Co', contact_email: 'hiring@conformance.example.com' };
    let published = false;
    try {
      // the third brief has no word any candidate can match: the surest way to the "no strong match" answer
      for (const brief of [
        'Senior backend engineer with TypeScript, Node.js and PostgreSQL, remote from Jakarta',
        'Underwater basket weaving instructor fluent in Klingon',
        'Qzxv wpfkj jrtlq',
      ]) {
        await ctx.failures.step(async () => {
          const r = await s.callTool('hire', { ...base, brief });
          if (failed(r))
            throw violation(
              'MCP-TOOL-12',
              `hire failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
              r.exchange,
            );
          const p = toolPayload(r.result);
          const leak = personalKeys(p);
          if (leak.length)
            throw violation(
              'MCP-TOOL-12',
              `hire returned personal data fields: ${leak.slice(0, 5).join(', ')}`,
              r.exchange,
            );
          // the result's field names are not shown: a shortlist is its main list of records (not a list inside
          // a candidate) of at least 3 candidates, each with a 0–100 score; no list is the "no strong match" answer
          const list = shortlistOf(p);
          if (list.length >= 3) {
            for (const c of list) {
              const problem = scoreProblem(c, ['score']);
              if (problem)
                throw violation(
                  'MCP-TOOL-12',
                  `a shortlisted candidate ${JSON.stringify(c).slice(0, 120)} has ${problem}: the score is 0–100`,
                  r.exchange,
                );
            }
            if (list.some((c) => numbersNamed(c, ['score']).some((n) => n < 75)))
              ctx.failures.add('POL-MCP-6', 'a strong-match shortlist holds a candidate scored below 75', r.exchange);
            return;
          }
          if (list.length > 0)
            throw violation(
              'MCP-TOOL-12',
              `hire returned a shortlist of ${list.length} candidate(s); a shortlist needs at least 3 strong matches, otherwise the result says there is no strong match`,
              r.exchange,
            );
          const pub = await s.callTool('hire', { ...base, brief, publish_if_no_match: true });
          if (failed(pub))
            throw violation(
              'MCP-TOOL-13',
              `hire with publish_if_no_match failed: ${JSON.stringify(toolPayload(pub.result) ?? pub.rpcError)}`,
              pub.exchange,
            );
          // posting the role is observable as a result that reports more than the plain "no strong match" answer
          const plainValues = new Set(leaves(p).map((l) => JSON.stringify(l.value)));
          if (leaves(toolPayload(pub.result)).every((l) => plainValues.has(JSON.stringify(l.value))))
            throw violation(
              'MCP-TOOL-13',
              'hire with publish_if_no_match answered exactly what it answers without it: no role was posted',
              r.exchange,
              pub.exchange,
            );
          published = true;
        });
      }
    } finally {
      await s.close();
    }
    // a precondition that did not hold is never a pass
    if (!published)
      ctx.unobserved('MCP-TOOL-13', 'no brief got the "no strong match" answer that publish_if_no_match needs');
  },
};

export const toolChecks = [drafting, grounding, employer, hire, talentDaily];
