// The deterministic jobs corpus: `size` active jobs plus about 5% inactive ones, generated from the
// seed and the vocabularies in fixtures/jobs. The same seed and size give the same corpus byte for
// byte, independent of the clock, the port or anything else that happened in the sandbox.
// Requirements: JOB-SEARCH-2, JOB-SEARCH-6, JOB-GET-2; decisions D-26, D-29, D-43.

import { Rng } from '../rng.js';
import { Describer } from './description.js';
import { IDR_PER_USD, MONTHLY_FACTOR, midpointIdrMonthly } from './pay.js';
import type { Currency, JobType, OpportunityType, PayPeriod, RemoteType, Seniority, StoredJob } from './types.js';
import type { Company, RoleFamily, Vocabulary } from './vocab.js';

/** Listings are posted over the 60 days before this instant (a fixed date, so a seed reproduces them). */
export const CORPUS_EPOCH_MS = Date.UTC(2026, 10, 1);
export const POSTED_WINDOW_DAYS = 60;
/** Stable public host of listing pages; independent of where the sandbox listens. */
export const LISTING_HOST = 'https://jobs.remote-jobs.example';
export const INACTIVE_SHARE = 0.05;

export interface Corpus {
  /** Every job, active and inactive, by postedAt descending then id. */
  all: StoredJob[];
  /** Active jobs in the same order: position i is the search index's document i. */
  active: StoredJob[];
  byId: Map<string, StoredJob>;
}

type Weighted<T> = ReadonlyArray<readonly [T, number]>;

function weighted<T>(rng: Rng, table: Weighted<T>): T {
  let total = 0;
  for (const [, w] of table) total += w;
  let u = rng.next() * total;
  for (const [v, w] of table) {
    if ((u -= w) < 0) return v;
  }
  return table[table.length - 1][0];
}

const OPPORTUNITY: Weighted<OpportunityType> = [
  ['regular', 85],
  ['internship', 6],
  ['fellowship', 2],
  ['apprenticeship', 3],
  ['volunteer', 4],
];
const SENIORITY: Weighted<Seniority> = [
  ['junior', 25],
  ['mid', 35],
  ['senior', 30],
  ['lead', 10],
];
const REMOTE: Weighted<RemoteType> = [
  ['worldwide', 30],
  ['regional', 45],
  ['timezone-based', 25],
];
const JOB_TYPE: Weighted<JobType> = [
  ['full-time', 60],
  ['contract', 20],
  ['part-time', 10],
  ['freelance', 10],
];
const SENIORITY_PAY: Record<Seniority, number> = { junior: 0.6, mid: 1, senior: 1.6, lead: 2.2 };
const OPPORTUNITY_PAY: Record<OpportunityType, number> = {
  regular: 1,
  internship: 0.35,
  fellowship: 0.7,
  apprenticeship: 0.5,
  volunteer: 0,
};
const SENIORITY_PREFIX: Record<Seniority, string> = { junior: 'Junior ', mid: '', senior: 'Senior ', lead: 'Lead ' };
/** Foreign employers paying in USD pay more than the local median for the same role. */
const USD_PREMIUM = 1.6;
const NO_PAY_SHARE = 0.12;
const CONTACT_SHARE = 0.45;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `new Date(ms).toISOString()` for whole seconds after 1970, by civil-date arithmetic (H. Hinnant's
 * days-to-date algorithm): formatting 100,000 dates through Date is a large share of generation time.
 */
export function isoSeconds(ms: number): string {
  const secs = Math.floor(ms / 1000);
  const days = Math.floor(secs / 86_400);
  const rem = secs - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${pad(month)}-${pad(day)}T${pad(Math.floor(rem / 3600))}:${pad(Math.floor(rem / 60) % 60)}:${pad(rem % 60)}.000Z`;
}

const roundTo = (v: number, step: number) => Math.max(step, Math.round(v / step) * step);
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function titleOf(base: string, seniority: Seniority, opp: OpportunityType): string {
  switch (opp) {
    case 'internship':
      return `${base} Intern`;
    case 'apprenticeship':
      return `Apprentice ${base}`;
    case 'fellowship':
      return `${base} Fellow`;
    case 'volunteer':
      return `Volunteer ${base}`;
    default:
      return `${SENIORITY_PREFIX[seniority]}${base}`;
  }
}

/** Skills biased towards the start of the family's list (its core skills), all distinct. */
function skillsOf(rng: Rng, family: RoleFamily): string[] {
  const count = rng.int(3, Math.min(8, family.skills.length));
  const chosen: string[] = [];
  while (chosen.length < count) {
    const skill = family.skills[Math.floor(family.skills.length * Math.pow(rng.next(), 1.6))];
    if (!chosen.includes(skill)) chosen.push(skill);
  }
  return chosen;
}

interface Pay {
  payMin: number | null;
  payMax: number | null;
  payCurrency: Currency;
  payPeriod: PayPeriod;
}

function payOf(
  rng: Rng,
  family: RoleFamily,
  company: Company,
  seniority: Seniority,
  opp: OpportunityType,
  jobType: JobType,
): Pay {
  // a few local employers pay in USD and a few foreign ones in IDR
  const currency: Currency = rng.chance(0.1) ? (company.currency === 'IDR' ? 'USD' : 'IDR') : company.currency;
  const hourly = jobType !== 'full-time';
  const period: PayPeriod =
    currency === 'IDR'
      ? 'month'
      : hourly
        ? weighted(rng, [
            ['hour', 60],
            ['day', 10],
            ['month', 30],
          ])
        : weighted(rng, [
            ['year', 55],
            ['month', 45],
          ]);
  const factor = OPPORTUNITY_PAY[opp] * (jobType === 'part-time' ? 0.55 : 1);
  if (factor === 0 || rng.chance(NO_PAY_SHARE))
    return { payMin: null, payMax: null, payCurrency: currency, payPeriod: period };
  const monthlyIdr = family.payMidIdr * SENIORITY_PAY[seniority] * factor * (0.8 + rng.next() * 0.45);
  const lo = monthlyIdr * (0.82 + rng.next() * 0.08);
  const hi = monthlyIdr * (1.1 + rng.next() * 0.2);
  if (currency === 'IDR') {
    const min = roundTo(lo, 500_000);
    return {
      payMin: min,
      payMax: Math.max(min + 500_000, roundTo(hi, 500_000)),
      payCurrency: 'IDR',
      payPeriod: 'month',
    };
  }
  const usd = (v: number) => (v * USD_PREMIUM) / IDR_PER_USD;
  const step = { hour: 1, day: 5, month: 100, year: 1000 }[period];
  const per = MONTHLY_FACTOR[period];
  const min = roundTo(usd(lo) / per, step);
  return {
    payMin: min,
    payMax: Math.max(min + step, roundTo(usd(hi) / per, step)),
    payCurrency: 'USD',
    payPeriod: period,
  };
}

export function generateCorpus(vocab: Vocabulary, seed: number, size: number, promotedShare: number): Corpus {
  if (!Number.isInteger(size) || size < 0)
    throw new RangeError(`corpus size must be a non-negative integer, got ${size}`);
  const rng = new Rng(seed).fork('jobs-corpus');
  const families: Weighted<RoleFamily> = vocab.families.map((f) => [f, f.weight] as const);
  const total = size + Math.round(size * INACTIVE_SHARE);
  const ids = new Set<string>();
  const all: StoredJob[] = new Array(total);
  for (let i = 0; i < total; i++) {
    const active = i < size;
    const family = weighted(rng, families);
    const opp = weighted(rng, OPPORTUNITY);
    let seniority = weighted(rng, SENIORITY);
    if (opp === 'internship' || opp === 'apprenticeship') seniority = 'junior';
    if (opp === 'fellowship' && (seniority === 'senior' || seniority === 'lead')) seniority = 'mid';
    const title = titleOf(rng.pick(family.titles), seniority, opp);
    const company = rng.pick(vocab.companies);
    const remoteType = weighted(rng, REMOTE);
    const location = rng.pick(vocab.locations[remoteType]);
    let jobType = weighted(rng, JOB_TYPE);
    if (opp === 'internship' && (jobType === 'contract' || jobType === 'freelance')) jobType = 'full-time';
    if (opp === 'volunteer' && jobType === 'full-time') jobType = 'part-time';
    const skills = skillsOf(rng, family);
    const pay = payOf(rng, family, company, seniority, opp, jobType);
    let id: string;
    do id = `job_${rng.token(12)}`;
    while (ids.has(id));
    ids.add(id);
    const ageSeconds = rng.int(0, (active ? POSTED_WINDOW_DAYS : POSTED_WINDOW_DAYS * 1.5) * 86_400 - 1);
    const postedAtMs = CORPUS_EPOCH_MS - ageSeconds * 1000;
    const hasContact = rng.chance(CONTACT_SHARE);
    const atsUrl = hasContact
      ? null
      : rng
          .pick(vocab.atsPatterns)
          .replace('{domain}', company.domain)
          .replace('{slug}', slug(company.name))
          .replace('{n}', String(rng.int(1000, 99_999)));
    all[i] = {
      id,
      title,
      company: company.name,
      location,
      payMin: pay.payMin,
      payMax: pay.payMax,
      payCurrency: pay.payCurrency,
      payPeriod: pay.payPeriod,
      remoteType,
      jobType,
      postedAt: isoSeconds(postedAtMs),
      postedAtMs,
      url: `${LISTING_HOST}/jobs/${id}`,
      applyUrl: atsUrl ?? `${LISTING_HOST}/jobs/${id}/apply`,
      active,
      opportunityType: opp,
      roleFamily: family.slug,
      seniority,
      skills,
      employerContact: hasContact ? `${rng.pick(['hiring', 'talent', 'careers', 'jobs'])}@${company.domain}` : null,
      atsUrl,
      payIdrMonthly: midpointIdrMonthly(pay.payMin, pay.payMax, pay.payCurrency, pay.payPeriod),
      promoted: active && rng.chance(promotedShare),
      descParts: Describer.partsFor(vocab, family, rng),
    };
  }
  all.sort((a, b) => b.postedAtMs - a.postedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { all, active: all.filter((j) => j.active), byId: new Map(all.map((j) => [j.id, j])) };
}
