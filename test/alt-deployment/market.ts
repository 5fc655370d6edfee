// Market data over the active corpus: a salary grid, role-family reports and skill demand.
import { FAMILIES, SENIORITIES, type CorpusJob } from './corpus.js';
import { fail } from './http.js';
import type { Switches } from './violations.js';

const USD_IN_IDR = 15_500;
const PER_MONTH: Record<string, number> = { hour: 168, month: 1, year: 1 / 12 };

/** Monthly IDR at the listing's range midpoint. */
const monthlyIdr = (j: CorpusJob) =>
  ((j.payMin + j.payMax) / 2) * (j.payCurrency === 'USD' ? USD_IN_IDR : 1) * (PER_MONTH[j.payPeriod] ?? 1);

/** Nearest-rank percentile of sorted values. */
function pct(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return Math.round(sorted[rank - 1]);
}

export function salaryGrid(corpus: CorpusJob[], v: Switches) {
  const cells: { family: string; level: string; n: number; median: number; iqr: [number, number] }[] = [];
  if (v.on('salary-empty')) return { unit: 'IDR per month', cells };
  for (const f of FAMILIES) {
    for (const s of SENIORITIES) {
      const pays = corpus
        .filter((j) => j.active && j.family.slug === f.slug && j.seniority === s)
        .map(monthlyIdr)
        .sort((a, b) => a - b);
      if (!pays.length) continue;
      cells.push({
        family: f.slug,
        level: s,
        n: pays.length,
        median: pct(pays, 0.5),
        iqr: [pct(pays, 0.25), pct(pays, 0.75)],
      });
    }
  }
  return { unit: 'IDR per month', cells };
}

export function checkLocale(locale: string | undefined, v: Switches): 'id' | 'en' {
  if (locale === undefined || (v.on('market-locale-any') && locale !== 'id')) return 'en';
  if (locale !== 'id' && locale !== 'en') throw fail(400, `locale: must be "id" or "en"; got "${locale}"`);
  return locale;
}

export function roleList(corpus: CorpusJob[], locale: 'id' | 'en', v: Switches) {
  const families = FAMILIES.map((f) => ({
    slug: f.slug,
    label: f[locale],
    openings: corpus.filter((j) => j.active && j.family.slug === f.slug).length,
  }));
  if (v.on('roles-dead-slug'))
    families.push({
      slug: 'quantum-computing',
      label: locale === 'id' ? 'Komputasi kuantum' : 'Quantum computing',
      openings: 0,
    });
  return { locale, families };
}

export function roleReport(corpus: CorpusJob[], slug: string, locale: 'id' | 'en', v: Switches) {
  const f = FAMILIES.find((x) => x.slug === slug);
  if (!f && v.on('role-unknown-200') && slug !== 'quantum-computing')
    return { slug, label: slug, locale, openings: 0, medianMonthlyIdr: null, byLevel: {}, topSkills: [] };
  if (!f) throw fail(404, `role "${slug}" has no market report`);
  const jobs = corpus.filter((j) => j.active && j.family.slug === slug);
  const pays = jobs.map(monthlyIdr).sort((a, b) => a - b);
  return {
    slug,
    label: f[locale],
    locale,
    openings: jobs.length,
    medianMonthlyIdr: pays.length ? pct(pays, 0.5) : null,
    byLevel: Object.fromEntries(SENIORITIES.map((s) => [s, jobs.filter((j) => j.seniority === s).length])),
    topSkills: skillCounts(jobs)
      .slice(0, 5)
      .map((s) => s.skill),
  };
}

function skillCounts(jobs: CorpusJob[]) {
  const counts = new Map<string, number>();
  for (const j of jobs) for (const s of j.skills) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts]
    .map(([skill, mentions]) => ({ skill, mentions }))
    .sort((a, b) => b.mentions - a.mentions || a.skill.localeCompare(b.skill));
}

export function checkSkillsLimit(raw: number | undefined): number {
  const limit = raw ?? 25;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw fail(400, `limit: must be an integer from 1 to 100; got ${raw}`);
  return limit;
}

export function skillDemand(corpus: CorpusJob[], rawLimit: number | undefined, v: Switches) {
  const limit = checkSkillsLimit(rawLimit);
  const all = skillCounts(corpus.filter((j) => j.active));
  if (v.on('skills-ascending')) all.reverse();
  return { skills: all.slice(0, limit) };
}
