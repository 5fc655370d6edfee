// The requirements catalogue (contracts/requirements.yaml): every normative statement of the two API
// documents with a stable id and a level. `must` items are stated by the documents and decide the run;
// `policy` items are this project's answers where the documents say "not shown", reported separately.

import { readFileSync, statSync } from 'node:fs';
import YAML from 'yaml';

export type Level = 'must' | 'policy';

export interface Requirement {
  id: string;
  level: Level;
  text: string;
  source?: string;
  decision?: string;
  /** False when no API call can observe it (the harness reports it as not observable). */
  observable: boolean;
  /** What the checks observe of it, and where that is weaker than its sentence. */
  observes?: string;
}

export interface Catalogue {
  file: string;
  all: Requirement[];
  byId: Map<string, Requirement>;
}

/** Catalogues read in this process, by file, with the size and time of change they were read at. */
const catalogues = new Map<string, { size: number; mtimeMs: number; catalogue: Catalogue }>();

/** The requirements catalogue `file` holds; read again only when the file changed since it was last read here. */
export function loadCatalogue(file: string): Catalogue {
  const at = statSync(file);
  const known = catalogues.get(file);
  if (known && known.size === at.size && known.mtimeMs === at.mtimeMs) return known.catalogue;
  const catalogue = readCatalogue(file);
  catalogues.set(file, { size: at.size, mtimeMs: at.mtimeMs, catalogue });
  return catalogue;
}

function readCatalogue(file: string): Catalogue {
  const data = YAML.parse(readFileSync(file, 'utf8'));
  const list: unknown[] = Array.isArray(data) ? data : Array.isArray(data?.requirements) ? data.requirements : [];
  if (list.length === 0)
    throw new Error(`${file}: no requirements found (expected a list, or a \`requirements:\` list)`);
  const all: Requirement[] = [];
  const byId = new Map<string, Requirement>();
  for (const [i, item] of list.entries()) {
    const r = item as Record<string, unknown>;
    if (typeof r?.id !== 'string') throw new Error(`${file}: entry ${i} has no id`);
    if (r.level !== 'must' && r.level !== 'policy')
      throw new Error(`${file}: ${r.id} has level '${String(r.level)}' (expected must or policy)`);
    if (byId.has(r.id)) throw new Error(`${file}: duplicate id ${r.id}`);
    const req: Requirement = {
      id: r.id,
      level: r.level,
      text: (typeof r.text === 'string' ? r.text : typeof r.requirement === 'string' ? r.requirement : '').trim(),
      ...(typeof r.source === 'string'
        ? { source: r.source }
        : typeof r.source === 'object' && r.source
          ? { source: Object.values(r.source).join(' ') }
          : {}),
      ...(typeof r.decision === 'string' ? { decision: r.decision } : {}),
      observable: r.observable !== false,
      ...(typeof r.observes === 'string' ? { observes: r.observes.trim() } : {}),
    };
    all.push(Object.freeze(req));
    byId.set(req.id, req);
  }
  // shared by every run that reads it: nothing changes it
  return Object.freeze({ file, all: Object.freeze(all) as Requirement[], byId });
}

/** True when `id` is selected by one of the --only prefixes (no prefixes: everything). */
export function selected(only: readonly string[], ...ids: string[]): boolean {
  if (only.length === 0) return true;
  return ids.some((id) => only.some((p) => id.toUpperCase().startsWith(p.toUpperCase())));
}
