// What each server's tools/list shows. The anonymous server lists its three contracts, plus the keyed
// apply_to_job when the planted bug `anon_exposes_apply` is on (listed only: calling it stays unknown).

import type { Core } from '../domain/core.js';
import { toolCatalog, type AdvertisedTool } from './toolContracts.js';

export const keyedListed = (core: Core): AdvertisedTool[] => toolCatalog(core.contracts).list('keyed');

export function anonListed(core: Core): AdvertisedTool[] {
  const catalog = toolCatalog(core.contracts);
  return core.faults.planted.anonTools(catalog.list('anon'), () =>
    catalog.list('keyed').filter((t) => t.name === 'apply_to_job'),
  );
}
