// PLACEHOLDER (replaced by the domain's own snapshots when they are merged): the interface the shared
// sandbox's snapshots are written against. exportState refuses, so no snapshot is written yet.

import type { Core } from './core.js';

export const SNAPSHOT_FORMAT = 1;

export interface Snapshot {
  format: number;
  global: unknown;
  tenants: Record<string, unknown>;
}

export function exportState(_core: Core): Snapshot {
  throw new Error('domain snapshots are not built yet');
}

export function importState(_core: Core, snap: Snapshot): void {
  throw new Error(`domain snapshots are not built yet (format ${snap.format})`);
}
