// An anonymized, deterministic talent pool for the employer tools, with a simple relevance score.
import { FAMILIES } from './corpus.js';

const CITIES = ['Jakarta', 'Bandung', 'Surabaya', 'Yogyakarta', 'Medan', 'Denpasar', 'Makassar', 'Semarang'];

export interface Talent {
  code: string;
  family: string;
  headline: string;
  years: number;
  skills: { name: string; years: number }[];
  city: string;
  region: string;
  consented: boolean;
  openToWork: boolean;
  workAuthorization: string;
  needsSponsorship: boolean;
  noticeWeeks: number;
}

export function buildTalent(n = 90): Talent[] {
  const out: Talent[] = [];
  for (let i = 0; i < n; i++) {
    const f = FAMILIES[i % FAMILIES.length];
    const years = 1 + ((i * 7) % 12);
    out.push({
      code: `tl-${(104729 * (i + 3)).toString(36)}`,
      family: f.slug,
      headline: `${years >= 6 ? 'Senior ' : ''}${f.title}`,
      years,
      skills: f.skills.filter((_, k) => (i + k) % 4 !== 0).map((name, k) => ({ name, years: Math.max(1, years - k) })),
      city: CITIES[i % CITIES.length],
      region: i % 3 === 0 ? 'Java' : i % 3 === 1 ? 'Sumatra & Bali' : 'Eastern Indonesia',
      consented: i % 9 !== 4,
      openToWork: i % 7 !== 2,
      workAuthorization: 'Indonesia',
      needsSponsorship: i % 5 === 0,
      noticeWeeks: (i % 4) * 2,
    });
  }
  return out;
}

export interface TalentQuery {
  query?: string;
  skills?: string[];
  roles?: string[];
}

/** 0..100 fit with its parts: role match (40), skill overlap (40), experience (20). */
export function fit(t: Talent, q: TalentQuery) {
  const words = (q.query ?? '')
    .toLowerCase()
    .split(/[^a-z0-9.+#-]+/)
    .filter((w) => w.length > 1);
  const wanted = [...(q.skills ?? []), ...words].map((s) => s.toLowerCase());
  const roles = (q.roles ?? []).map((r) => r.toLowerCase());
  const roleHit =
    roles.some((r) => t.family.includes(r) || t.headline.toLowerCase().includes(r)) ||
    words.some((w) => t.headline.toLowerCase().includes(w) || t.family.includes(w));
  const have = t.skills.map((s) => s.name.toLowerCase());
  const skillWanted = wanted.filter((w) => FAMILIES.some((f) => f.skills.some((s) => s.toLowerCase() === w)));
  const skillHits = skillWanted.filter((w) => have.includes(w)).length;
  const role = roleHit ? 40 : 0;
  const skill = skillWanted.length ? Math.round((40 * skillHits) / skillWanted.length) : roleHit ? 20 : 0;
  const experience = Math.min(20, t.years * 2);
  return { total: role + skill + experience, role, skill, experience };
}

/** Consented, open-to-work candidates ranked by fit, best first. */
export function rank(pool: Talent[], q: TalentQuery) {
  return pool
    .filter((t) => t.consented && t.openToWork)
    .map((t) => ({ t, fit: fit(t, q) }))
    .sort((a, b) => b.fit.total - a.fit.total || a.t.code.localeCompare(b.t.code));
}
