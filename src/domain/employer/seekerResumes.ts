// Saved resumes of job-seeker keys (fixtures/resumes-seekers): demo tenants get the resume named for
// them, any other tenant one picked deterministically from its tenant id.
// Requirements: MCP-TOOL-4; decisions D-47.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Tenant } from '../tenants.js';

export interface SeekerResume {
  id: string;
  name: string;
  email: string;
  headline: string;
  location: string;
  yearsExperience: number;
  summary: string;
  experience: { title: string; employer: string; start: string; end: string | null; highlights: string[] }[];
  skills: { name: string; years: number }[];
  education: { degree: string; school: string; year: number }[];
  languages: string[];
}

const DIR = fileURLToPath(new URL('../../../fixtures/resumes-seekers/', import.meta.url));
const index = JSON.parse(readFileSync(`${DIR}index.json`, 'utf8')) as {
  byDemoTenant: Record<string, string>;
  pool: string[];
};
const resumes = new Map<string, SeekerResume>(
  [...new Set([...index.pool, ...Object.values(index.byDemoTenant)])].map((id) => [
    id,
    JSON.parse(readFileSync(`${DIR}${id}.json`, 'utf8')),
  ]),
);

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function resumeOf(tenant: Pick<Tenant, 'id' | 'name'>): SeekerResume {
  const id = index.byDemoTenant[tenant.name] ?? index.pool[fnv1a(tenant.id) % index.pool.length];
  return resumes.get(id)!;
}

export function allResumes(): SeekerResume[] {
  return [...resumes.values()];
}
