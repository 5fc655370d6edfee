// The rule-based scam check a free job posting must pass before it goes live. Each rule has an id, a
// weight and a description (the list is published in the README); the weights of the rules that fire
// add up to a score: below REVIEW_AT the posting goes live, from REVIEW_AT it waits for manual review,
// from REJECT_AT it is rejected. The rules follow the job-scam patterns consumer-protection agencies
// warn about: fees, off-platform chat, money schemes, unrealistic pay and anonymous employers.
// Requirements: MCP-TOOL-13; decisions D-49.

import { toIdrMonthly } from '../jobs/pay.js';
import type { PayPeriod } from '../jobs/types.js';

export const REVIEW_AT = 25;
export const REJECT_AT = 50;

/** No listing of this catalogue pays more than this per month; above it, the pay is a lure. */
export const MAX_PLAUSIBLE_IDR_PER_MONTH = 150_000_000;

export interface Posting {
  title: string;
  company: string;
  description: string;
  contactEmail?: string | null;
  applyUrl?: string | null;
  pay?: { min?: number; max?: number; currency?: 'IDR' | 'USD'; period?: string } | null;
}

export interface ScamRule {
  id: string;
  weight: number;
  description: string;
  /** Evidence (the matching text) when the rule fires, else null. */
  test(p: Posting): string | null;
}

const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.id',
  'ymail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'aol.com',
  'icloud.com',
  'proton.me',
  'protonmail.com',
  'mail.com',
  'gmx.com',
  'yandex.com',
]);
const GENERIC_COMPANY =
  /^(n\/?a|-+|\.+|none|confidential|private|anonymous|rahasia|hiring company|company|perusahaan|tbd|unknown|secret)$/i;

// An amount: dollars, rupiah written with "Rp"/"IDR", or Indonesian shorthand without a currency
// ("5 juta", "5jt", "500 ribu", "500rb").
// The unit after the digits is an optional group that starts with its spaces, so a run of spaces is
// read one way only (linear time on hostile input).
const AMOUNT = String.raw`(\$\s?\d{3,}|usd\s?\d{3,}|(rp\.?|idr)\s?\d[\d.,]*(?:\s*(juta|jt|ribu|rb))?|\d[\d.,]*\s*(juta|jt|ribu|rb)\b)`;
const PER_DAY = String.raw`\s*(rupiah\s*)?(per|\/|a|sehari|setiap|tiap)\s*(day|hari|week|minggu)\b|\s*(rupiah\s*)?(sehari|seminggu)\b`;
/** "earn Rp 500.000 per day", "gaji 5 juta/hari": an earnings promise per day or week. */
const DAILY_LURE = new RegExp(
  String.raw`\b(earn|earning|income|make|gaji|penghasilan|dapat|dibayar)\b[^.\n]{0,30}?` + AMOUNT + `(${PER_DAY})`,
  'i',
);
/** "5 juta per day": millions a day or a week in the shorthand lures use, with or without "Rp". */
const MILLIONS_A_DAY = new RegExp(
  String.raw`\b(rp\.?\s?|idr\s?)?\d+([.,]\d+)?\s*(juta|jt|million)\b` + `(${PER_DAY})`,
  'i',
);

const text = (p: Posting) => `${p.title}\n${p.description}`;
const find = (re: RegExp, s: string) => re.exec(s)?.[0] ?? null;

/** The top of a pay range as IDR per month, at the jobs domain's fixed documented rates. */
export function payPerMonthIdr(pay: NonNullable<Posting['pay']>): number | null {
  const top = pay.max ?? pay.min;
  if (top === undefined) return null;
  return toIdrMonthly(top, pay.currency ?? 'IDR', (pay.period ?? 'month') as PayPeriod);
}

export const SCAM_RULES: readonly ScamRule[] = [
  {
    id: 'upfront_fee',
    weight: 40,
    description: 'asks applicants to pay: registration, training, administration or equipment fees, deposits',
    test: (p) =>
      find(
        /\b(registration|training|admin(istration)?|processing|onboarding|equipment|starter[- ]kit|uniform|security)\s+(fee|deposit|cost)s?\b|\bpay\s+(a|an|the)?\s*(small\s+)?(fee|deposit)\b|\bbiaya\s+(pendaftaran|pelatihan|admin(istrasi)?)\b|\btransfer\s+(dulu|terlebih\s+dahulu)\b/i,
        text(p),
      ),
  },
  {
    id: 'personal_messaging',
    weight: 25,
    description:
      'moves applicants to personal messaging apps or a private phone number (WhatsApp, Telegram, LINE, WeChat)',
    test: (p) =>
      find(
        /\b(whats\s?app|wa\.me|telegram|t\.me\/\w+|line\s?id|wechat|signal\s+app|dm\s+me)\b|(\+62|\b08)\d[\d\s-]{7,}\d/i,
        `${text(p)}\n${p.applyUrl ?? ''}`,
      ),
  },
  {
    id: 'crypto_investment',
    weight: 35,
    description: 'involves crypto, forex, "investment" or trading schemes',
    test: (p) =>
      find(
        /\b(crypto(currency)?|bitcoin|btc|usdt|forex|investment|investasi|trading\s+signals?|binary\s+options?|mining\s+pool|deposit\s+bonus)\b/i,
        text(p),
      ),
  },
  {
    id: 'unrealistic_pay',
    weight: 30,
    description: `promises pay far above any listing of the catalogue (more than IDR ${MAX_PLAUSIBLE_IDR_PER_MONTH.toLocaleString('en-US')} a month) or daily earnings lures`,
    test: (p) => {
      const monthly = p.pay ? payPerMonthIdr(p.pay) : null;
      if (monthly !== null && monthly > MAX_PLAUSIBLE_IDR_PER_MONTH)
        return `pay of about IDR ${Math.round(monthly).toLocaleString('en-US')} a month`;
      return find(DAILY_LURE, text(p)) ?? find(MILLIONS_A_DAY, text(p));
    },
  },
  {
    id: 'missing_company',
    weight: 20,
    description: 'no real company name (empty, "confidential", "private" and the like)',
    test: (p) => (p.company.trim() === '' || GENERIC_COMPANY.test(p.company.trim()) ? `company: '${p.company}'` : null),
  },
  {
    id: 'free_mail_contact',
    weight: 15,
    description: 'the company contact is a free webmail address (gmail.com, yahoo.com, …)',
    test: (p) => {
      const domain = p.contactEmail?.split('@')[1]?.toLowerCase();
      return domain && FREE_MAIL.has(domain) ? `contact domain ${domain}` : null;
    },
  },
  {
    id: 'personal_data_request',
    weight: 30,
    description: 'asks for ID cards, bank details, passwords or one-time codes up front',
    test: (p) =>
      find(
        /\b(send|kirim(kan)?|provide|share|submit)\b[^.\n]{0,40}\b(ktp|id card|passport|paspor|bank account|rekening|otp|password|pin|kartu kredit|credit card)\b/i,
        text(p),
      ),
  },
  {
    id: 'too_good_to_be_true',
    weight: 15,
    description: 'guaranteed income, easy or quick money, "get rich", a full income for minutes a day',
    test: (p) =>
      find(
        /\b(guaranteed\s+(income|earnings|job)|easy\s+money|quick\s+money|get\s+rich|uang\s+mudah|cuan\s+cepat|work\s+(just|only)\s+\d+\s+(minutes?|hours?)\s+a\s+day)\b/i,
        text(p),
      ),
  },
  {
    id: 'urgency_pressure',
    weight: 10,
    description: 'pressure to act at once (limited slots, today only)',
    test: (p) =>
      find(
        /\b(limited\s+slots?|today\s+only|act\s+now|only\s+\d+\s+slots?|kuota\s+terbatas|segera\s+daftar)\b/i,
        text(p),
      ),
  },
  {
    id: 'link_shortener',
    weight: 10,
    description: 'hides the destination behind a link shortener',
    test: (p) =>
      find(
        /\b(bit\.ly|tinyurl\.com|s\.id|cutt\.ly|t\.co|shorturl\.at|rebrand\.ly)\/\S*/i,
        `${p.description}\n${p.applyUrl ?? ''}`,
      ),
  },
  {
    id: 'vague_description',
    weight: 10,
    description: 'too short to say what the work is (fewer than 15 words)',
    test: (p) => {
      const words = p.description.trim().split(/\s+/).filter(Boolean).length;
      return words < 15 ? `${words} words` : null;
    },
  },
];

export type ScamVerdict = 'live' | 'manual_review' | 'rejected';

export interface ScamCheckResult {
  passed: boolean;
  score: number;
  verdict: ScamVerdict;
  rules: { id: string; weight: number; description: string; evidence: string }[];
}

export function scamCheck(p: Posting): ScamCheckResult {
  const rules = SCAM_RULES.flatMap((r) => {
    const evidence = r.test(p);
    return evidence === null
      ? []
      : [{ id: r.id, weight: r.weight, description: r.description, evidence: evidence.slice(0, 120) }];
  });
  const score = rules.reduce((s, r) => s + r.weight, 0);
  const verdict: ScamVerdict = score >= REJECT_AT ? 'rejected' : score >= REVIEW_AT ? 'manual_review' : 'live';
  return { passed: verdict === 'live', score, verdict, rules };
}
