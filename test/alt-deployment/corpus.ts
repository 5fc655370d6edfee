// A deterministic in-memory job corpus: a few hundred active listings and a handful of inactive ones.

export type RemoteType = 'worldwide' | 'regional' | 'timezone-based';
export type JobType = 'full-time' | 'part-time' | 'contract' | 'freelance';
export type OpportunityType = 'regular' | 'internship' | 'fellowship' | 'apprenticeship' | 'volunteer';
export const REMOTE_TYPES: readonly RemoteType[] = ['worldwide', 'regional', 'timezone-based'];
export const JOB_TYPES: readonly JobType[] = ['full-time', 'part-time', 'contract', 'freelance'];
export const OPPORTUNITY_TYPES: readonly OpportunityType[] = [
  'regular',
  'internship',
  'fellowship',
  'apprenticeship',
  'volunteer',
];

export interface Family {
  slug: string;
  en: string;
  id: string;
  title: string;
  skills: string[];
}

export const FAMILIES: readonly Family[] = [
  {
    slug: 'data-engineering',
    en: 'Data engineering',
    id: 'Rekayasa data',
    title: 'Data Engineer',
    skills: ['Python', 'SQL', 'Airflow', 'Spark', 'dbt'],
  },
  {
    slug: 'backend-engineering',
    en: 'Backend engineering',
    id: 'Rekayasa backend',
    title: 'Backend Developer',
    skills: ['Go', 'Node.js', 'PostgreSQL', 'TypeScript', 'Kubernetes'],
  },
  {
    slug: 'frontend-engineering',
    en: 'Frontend engineering',
    id: 'Rekayasa frontend',
    title: 'Frontend Developer',
    skills: ['React', 'TypeScript', 'CSS', 'Next.js'],
  },
  {
    slug: 'product-design',
    en: 'Product design',
    id: 'Desain produk',
    title: 'Product Designer',
    skills: ['Figma', 'User research', 'Prototyping'],
  },
  {
    slug: 'customer-support',
    en: 'Customer support',
    id: 'Dukungan pelanggan',
    title: 'Support Specialist',
    skills: ['Zendesk', 'English', 'Bahasa Indonesia'],
  },
  {
    slug: 'ai-data-work',
    en: 'AI data work',
    id: 'Pekerjaan data AI',
    title: 'AI Data Annotator',
    skills: ['Annotation', 'English', 'Attention to detail'],
  },
  {
    slug: 'devops',
    en: 'DevOps',
    id: 'DevOps',
    title: 'Site Reliability Engineer',
    skills: ['Kubernetes', 'Terraform', 'AWS', 'Linux'],
  },
];

export const SENIORITIES = ['junior', 'mid', 'senior'] as const;
const COMPANIES = [
  'Nusantara Labs',
  'Kopi Analytics',
  'Borobudur Systems',
  'Lumen Remote',
  'Garuda Cloud',
  'Sawit Data',
  'Orbit Works',
  'Pelangi AI',
  'Tanjung Tech',
  'Merapi Digital',
];
const LOCATIONS = [
  'Remote, Indonesia',
  'Remote, Southeast Asia',
  'Remote, worldwide',
  'Remote, APAC (UTC+7 ±3h)',
  'Jakarta or remote',
  'Bandung or remote',
  'Remote, Asia',
];
const PAY = [
  { currency: 'USD', period: 'hour', base: 12 },
  { currency: 'USD', period: 'year', base: 30_000 },
  { currency: 'IDR', period: 'month', base: 12_000_000 },
] as const;

export interface CorpusJob {
  id: string;
  title: string;
  company: string;
  location: string;
  payMin: number;
  payMax: number;
  payCurrency: string;
  payPeriod: string;
  remoteType: RemoteType;
  jobType: JobType;
  opportunityType: OpportunityType;
  postedAt: string;
  url: string;
  applyUrl: string;
  active: boolean;
  promoted: boolean;
  employerContact: boolean;
  family: Family;
  seniority: (typeof SENIORITIES)[number];
  skills: string[];
}

/** mulberry32: a tiny seeded generator, so every deployment serves the same corpus. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function buildCorpus(active = 320, inactive = 20): CorpusJob[] {
  const rand = rng(20261123);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const base = Date.UTC(2026, 10, 20);
  const jobs: CorpusJob[] = [];
  for (let i = 0; i < active + inactive; i++) {
    const family = pick(FAMILIES);
    const seniority = pick(SENIORITIES);
    const pay = pick(PAY);
    const mult = (1 + SENIORITIES.indexOf(seniority) * 0.6) * (0.8 + rand() * 0.4);
    const payMin = Math.round(pay.base * mult);
    const company = pick(COMPANIES);
    const id = `jb${(7919 * (i + 1)).toString(36).padStart(5, '0')}`;
    const opportunityType: OpportunityType = rand() < 0.8 ? 'regular' : pick(OPPORTUNITY_TYPES.slice(1));
    const employerContact = rand() < 0.5;
    jobs.push({
      id,
      title: `${seniority === 'mid' ? '' : seniority === 'junior' ? 'Junior ' : 'Senior '}${family.title}${opportunityType === 'regular' ? '' : ` (${opportunityType})`}`,
      company,
      location: pick(LOCATIONS),
      payMin,
      payMax: Math.round(payMin * (1.2 + rand() * 0.3)),
      payCurrency: pay.currency,
      payPeriod: pay.period,
      remoteType: pick(REMOTE_TYPES),
      jobType: pick(JOB_TYPES),
      opportunityType,
      postedAt: new Date(base - Math.floor(rand() * 45 * 24) * 3600_000).toISOString(),
      url: `https://alt-jobs.example.org/l/${id}`,
      applyUrl: employerContact
        ? `https://alt-jobs.example.org/l/${id}/apply`
        : `https://careers.${company.toLowerCase().replace(/\s+/g, '')}.example.com/apply/${id}`,
      active: i < active,
      promoted: i % 8 === 3,
      employerContact,
      family,
      seniority,
      skills: family.skills
        .filter(() => rand() < 0.7)
        .concat(family.skills[0])
        .filter((s, k, xs) => xs.indexOf(s) === k),
    });
  }
  return jobs;
}
