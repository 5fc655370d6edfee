// The vetted list of AI-data-work platforms (fixtures/curated/platforms.json) served by the anonymous
// MCP server's get_curated_list.
// Requirements: MCP-ANON-6.

import { readFileSync } from 'node:fs';
import type { AnonGetCuratedListOutput } from '../../contract/types.js';
import { fileURLToPath } from 'node:url';

/** The fixture has the shape of the tool's result (the contract's generated type). */
const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/curated/platforms.json', import.meta.url)), 'utf8'),
) as AnonGetCuratedListOutput;

export function curatedList(category?: string): AnonGetCuratedListOutput {
  return {
    updatedAt: fixture.updatedAt,
    vettingCriteria: [...fixture.vettingCriteria],
    platforms: fixture.platforms
      .filter((p) => !category || p.categories.includes(category))
      .map((p) => structuredClone(p)),
  };
}
