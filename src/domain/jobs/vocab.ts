// The seed vocabularies of the jobs corpus (fixtures/jobs/*.json), read once per process.
// Requirements: none directly (corpus vocabularies); decisions D-43.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locale, RemoteType } from './types.js';

export interface RoleFamily {
  slug: string;
  name: Record<Locale, string>;
  summary: Record<Locale, string>;
  titles: string[];
  skills: string[];
  responsibilities: string[];
  /** Median monthly pay in IDR of a mid-level remote role. */
  payMidIdr: number;
  /** Relative share of listings in this family. */
  weight: number;
}

export interface Company {
  name: string;
  industry: string;
  hq: string;
  currency: 'IDR' | 'USD';
  domain: string;
}

export interface DescriptionTemplates {
  intros: string[];
  roleLines: string[];
  requirements: string[];
  remote: string[];
  benefits: string[];
}

export interface Vocabulary {
  families: RoleFamily[];
  companies: Company[];
  locations: Record<RemoteType, string[]>;
  descriptions: DescriptionTemplates;
  atsPatterns: string[];
}

const read = (name: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../../fixtures/jobs/${name}`, import.meta.url)), 'utf8'));

let cached: Vocabulary | null = null;

export function vocabulary(): Vocabulary {
  if (cached) return cached;
  const locations = read('locations.json');
  cached = Object.freeze({
    families: read('role-families.json').families,
    companies: read('companies.json').companies,
    locations: {
      worldwide: locations.worldwide,
      regional: locations.regional,
      'timezone-based': locations['timezone-based'],
    },
    descriptions: read('descriptions.json'),
    atsPatterns: read('ats.json').patterns,
  });
  return cached;
}
