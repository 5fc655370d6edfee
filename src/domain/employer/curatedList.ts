// The vetted list of AI-data-work platforms (fixtures/curated/platforms.json) served by the anonymous
// MCP server's get_curated_list.
// Requirements: MCP-ANON-6.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CuratedPlatform {
  id: string;
  name: string;
  url: string;
  categories: string[];
  languages: string[];
  payout: string[];
  payRangeUsdPerHour: { min: number; max: number };
  entry: string;
  notes: string;
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/curated/platforms.json', import.meta.url)), 'utf8')) as {
  updatedAt: string;
  vettingCriteria: string[];
  platforms: CuratedPlatform[];
};

export function curatedList(category?: string) {
  return {
    updatedAt: fixture.updatedAt,
    vettingCriteria: [...fixture.vettingCriteria],
    platforms: fixture.platforms.filter((p) => !category || p.categories.includes(category)).map((p) => structuredClone(p)),
  };
}
