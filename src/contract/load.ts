// Reads the two OpenAPI documents once and prepares the three views the loader needs: bundled (as served),
// dereferenced (swagger-parser, for readers that want plain objects) and a compile view for ajv in which
// every component schema is a shared `$defs` entry, so each is compiled once however often it is used.
// Full OpenAPI 3.1 validation (SwaggerParser.validate) runs in the contract tests, not at every start.

import SwaggerParser from '@apidevtools/swagger-parser';
import { fileURLToPath } from 'node:url';
import { forAjv } from './ajv.js';
import type { ApiName } from './index.js';
import type { Doc, DocNode } from './doc.js';

export const CONTRACTS_DIR = fileURLToPath(new URL('../../contracts/', import.meta.url));
export const API_NAMES: readonly ApiName[] = ['screening', 'jobs'];

export const documentPath = (api: ApiName) => `${CONTRACTS_DIR}${api}.openapi.yaml`;

/** The `$id` under which a document's component schemas are registered with ajv. */
export const schemaBase = (api: ApiName) => `https://contracts.remote-jobs.example/${api}.json`;

export interface LoadedDocument {
  bundled: Doc;
  dereferenced: Doc;
  /** Paths, webhooks and component schemas with schema refs pointing at `schemaBase(api)#/$defs/…`. */
  compileView: Doc;
}

export async function loadDocument(api: ApiName): Promise<LoadedDocument> {
  const file = documentPath(api);
  let bundled: Doc;
  let dereferenced: Doc;
  try {
    bundled = await SwaggerParser.parse(file);
    // dereference() rewrites the object it is given, so it gets its own copy.
    dereferenced = await SwaggerParser.dereference(structuredClone(bundled) as DocNode);
  } catch (e) {
    throw new Error(`contracts/${api}.openapi.yaml cannot be read: ${(e as Error).message}`, { cause: e });
  }
  const compileView = forAjv(toCompileView(bundled, schemaBase(api)));
  return { bundled: deepFreeze(bundled), dereferenced: deepFreeze(dereferenced), compileView };
}

/** Inlines references to responses, parameters, headers and request bodies; re-points schema references. */
function toCompileView(doc: Doc, base: string): Doc {
  const resolve = (ref: string): unknown => {
    const parts = ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node: DocNode = doc;
    for (const p of parts) node = node?.[p];
    if (node === undefined) throw new Error(`unresolvable $ref ${ref}`);
    return node;
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('reference cycle outside component schemas');
    if (Array.isArray(node)) return node.map((v) => walk(v, depth));
    if (!node || typeof node !== 'object') return node;
    const rec = node as Record<string, unknown>;
    if (typeof rec.$ref === 'string') {
      const ref = rec.$ref;
      if (ref.startsWith('#/components/schemas/'))
        return { ...rec, $ref: `${base}#/$defs/${ref.slice('#/components/schemas/'.length)}` };
      if (ref.startsWith('#/')) return walk(resolve(ref), depth + 1);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rec)) out[k] = walk(v, depth);
    return out;
  };
  return walk(doc, 0) as Doc;
}

function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const v of Object.values(value)) deepFreeze(v, seen);
    Object.freeze(value);
  }
  return value;
}
