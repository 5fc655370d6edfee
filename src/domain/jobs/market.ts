// Market data over the active corpus: salary benchmarks by role family and seniority, role reports in
// Indonesian or English, and in-demand skills. Computed once when the corpus loads (the corpus is
// static), so market calls are constant-time and free on every tier.
// Requirements: JOB-MKT-1, JOB-MKT-2, JOB-MKT-3, JOB-MKT-4, JOB-MKT-5, JOB-MKT-6, JOB-MKT-7, MCP-TOOL-3,
// POL-MKT-1, POL-MKT-2; decisions D-25.

import { notFound } from '../../errors/errors.js';
import { percentile } from './pay.js';
import {
  REMOTE_TYPES,
  SENIORITIES,
  type Locale,
  type PayStats,
  type RoleList,
  type RoleReport,
  type SalaryBenchmarks,
  type SkillList,
  type StoredJob,
} from './types.js';
import type { RoleFamily } from './vocab.js';

const TOP_SKILLS_PER_ROLE = 10;

function payStats(values: number[]): PayStats | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return {
    median: Math.round(percentile(sorted, 0.5)),
    p25: Math.round(percentile(sorted, 0.25)),
    p75: Math.round(percentile(sorted, 0.75)),
  };
}

function topCounts(counts: Map<string, number>, limit: number): Array<{ skill: string; mentions: number }> {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([skill, mentions]) => ({ skill, mentions }));
}

function countSkills(jobs: readonly StoredJob[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const j of jobs) for (const s of j.skills) counts.set(s, (counts.get(s) ?? 0) + 1);
  return counts;
}

interface FamilyFacts {
  family: RoleFamily;
  jobs: StoredJob[];
  pay: PayStats | null;
  topSkills: RoleReport['topSkills'];
  seniorityMix: RoleReport['seniorityMix'];
  remoteTypeMix: RoleReport['remoteTypeMix'];
}

export class Market {
  private readonly salaryGrid: SalaryBenchmarks;
  private readonly families: Map<string, FamilyFacts>;
  private readonly skillRanking: Array<{ skill: string; mentions: number }>;
  private readonly totalJobs: number;

  constructor(families: readonly RoleFamily[], active: readonly StoredJob[], generatedAt: string) {
    this.totalJobs = active.length;
    this.families = new Map(
      families.map((family) => [
        family.slug,
        { family, jobs: [] as StoredJob[], pay: null, topSkills: [], seniorityMix: [], remoteTypeMix: [] },
      ]),
    );
    for (const job of active) this.families.get(job.roleFamily)?.jobs.push(job);
    const rows: SalaryBenchmarks['rows'] = [];
    let sampleSize = 0;
    for (const facts of this.families.values()) {
      const paid = facts.jobs.filter((j) => j.payIdrMonthly !== null);
      facts.pay = payStats(paid.map((j) => j.payIdrMonthly!));
      facts.topSkills = topCounts(countSkills(facts.jobs), TOP_SKILLS_PER_ROLE);
      facts.seniorityMix = SENIORITIES.map((seniority) => ({
        seniority,
        jobs: facts.jobs.filter((j) => j.seniority === seniority).length,
      }));
      facts.remoteTypeMix = REMOTE_TYPES.map((remoteType) => ({
        remoteType,
        jobs: facts.jobs.filter((j) => j.remoteType === remoteType).length,
      }));
      for (const seniority of SENIORITIES) {
        const values = paid.filter((j) => j.seniority === seniority).map((j) => j.payIdrMonthly!);
        const stats = payStats(values);
        if (!stats) continue;
        rows.push({
          roleFamily: facts.family.slug,
          seniority,
          sampleSize: values.length,
          ...stats,
          iqr: stats.p75 - stats.p25,
        });
        sampleSize += values.length;
      }
    }
    this.salaryGrid = { currency: 'IDR', period: 'month', sampleSize, generatedAt, rows };
    this.skillRanking = topCounts(countSkills(active), Number.MAX_SAFE_INTEGER);
  }

  salary(): SalaryBenchmarks {
    return { ...this.salaryGrid, rows: this.salaryGrid.rows.map((r) => ({ ...r })) };
  }

  roles(locale: Locale): RoleList {
    return {
      locale,
      roles: [...this.families.values()].map(({ family, jobs }) => ({
        slug: family.slug,
        name: family.name[locale],
        jobCount: jobs.length,
      })),
    };
  }

  role(slug: string, locale: Locale): RoleReport {
    const facts = this.families.get(slug);
    if (!facts) throw notFound(`no role family '${slug}'; take a slug from GET /api/v1/market/roles`);
    const { family, jobs, pay } = facts;
    return {
      locale,
      slug,
      name: family.name[locale],
      summary: family.summary[locale],
      jobCount: jobs.length,
      pay: pay && { currency: 'IDR', period: 'month', ...pay },
      topSkills: facts.topSkills.map((s) => ({ ...s })),
      seniorityMix: facts.seniorityMix.map((m) => ({ ...m })),
      remoteTypeMix: facts.remoteTypeMix.map((m) => ({ ...m })),
    };
  }

  skills(limit: number): SkillList {
    return { skills: this.skillRanking.slice(0, limit).map((s) => ({ ...s })), totalJobs: this.totalJobs };
  }

  slugs(): string[] {
    return [...this.families.keys()];
  }
}
