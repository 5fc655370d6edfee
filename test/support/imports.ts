// The import graph of the source tree, read with the TypeScript compiler's own pre-processor (static,
// re-exported, type-only and dynamic imports alike), and the layering rules of src/ checked over it.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Edge {
  /** Importing file, relative to the repository root, with '/' separators. */
  from: string;
  /** Imported file (.ts), relative to the repository root. */
  to: string;
}

const slash = (p: string) => p.split(path.sep).join('/');

/** Every .ts file under `dir`, unit tests (*.test.ts) left out: they are not part of the shipped graph. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The relative imports of the files under each of `dirs` (absolute), as repository-relative edges. */
export function importEdges(repo: string, dirs: string[]): Edge[] {
  return dirs.flatMap((dir) =>
    sourceFiles(dir).flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((f) => f.fileName)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => ({
          from: slash(path.relative(repo, file)),
          to: slash(path.relative(repo, path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')))),
        })),
    ),
  );
}

/** The top-level part of src/ a file belongs to: its folder, or 'root' for the files directly in src/. */
export function partOf(file: string): string | null {
  if (!file.startsWith('src/')) return null;
  const rest = file.slice('src/'.length);
  const cut = rest.indexOf('/');
  return cut < 0 ? 'root' : rest.slice(0, cut);
}

const ADAPTERS = ['http', 'mcp', 'sandbox'];

/** Which parts each part may import, besides itself. Anything unlisted is a violation. */
export const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  contract: ['errors'],
  domain: ['contract', 'errors'],
  web: ['domain', 'contract', 'errors'],
  http: ['web', 'domain', 'contract', 'errors'],
  mcp: ['web', 'domain', 'contract', 'errors'],
  sandbox: ['web', 'domain', 'contract', 'errors'],
  // the store port's implementations: they implement the domain's port and know no adapter
  store: ['domain', 'contract', 'errors'],
  // a shared sandbox's replicated log of calls (D-112): opens the store, records and replays the calls the
  // apps answer (the console's control calls among them); imported by the root alone
  replication: ['store', 'web', 'domain', 'contract', 'errors', 'sandbox'],
  root: ['web', 'domain', 'contract', 'errors', 'store', 'replication', ...ADAPTERS],
  // the webhook listener command: a client of the sandbox over HTTP, importing nothing of it
  listen: [],
};

/** Every broken layering rule of src/, one line each (empty when the graph is clean). */
export function layeringViolations(edges: Edge[]): string[] {
  const out: string[] = [];
  const parts = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = partOf(e.from);
    const b = partOf(e.to);
    if (!a || !b) continue;
    if (a !== b) (parts.get(a) ?? parts.set(a, new Set()).get(a)!).add(b);
    if (b === 'root' && a !== 'root') out.push(`${e.from} imports the composition root (${e.to})`);
    else if (a !== b && !(ALLOWED[a] ?? []).includes(b)) out.push(`${e.from} (${a}) may not import ${b} (${e.to})`);
  }
  for (const cycle of folderCycles(parts)) out.push(`circle between the parts of src/: ${cycle.join(' → ')}`);
  return out;
}

/** The circles of the part graph: each strongly connected component of more than one part (Tarjan). */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** Imports of src/ by the harness other than the contract loader's entry point. */
export function harnessViolations(edges: Edge[]): string[] {
  return edges
    .filter((e) => e.to.startsWith('src/') && e.to !== 'src/contract/index.ts')
    .map((e) => `${e.from} imports ${e.to}`);
}
