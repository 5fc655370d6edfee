// Examples for the served API documents, derived from the contracts so Swagger UI shows the truth:
// each error response gets an example with the error code of its own status (the domain's code to
// status table) and the response's description as the message, instead of the one schema-level
// example every status would otherwise show; and an identifier property with a pattern but no
// example borrows the contract's own example value instead of random text generated from the pattern.

import { ERROR_STATUS } from '../errors/errors.js';
import type { Doc, DocNode } from '../contract/doc.js';

const CODE_OF_STATUS = new Map<number, string>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code]));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolve(doc: Doc, node: DocNode): DocNode {
  if (!node || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: DocNode, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Every response of every operation gets a media example fitting its own status. */
function errorExamples(doc: Doc): void {
  for (const item of Object.values<DocNode>(doc.paths ?? {})) {
    for (const m of METHODS) {
      const responses = item?.[m]?.responses;
      if (!responses) continue;
      for (const [status, ref] of Object.entries<DocNode>(responses)) {
        const code = CODE_OF_STATUS.get(Number(status));
        if (!code) continue;
        const response = resolve(doc, ref);
        const media = response?.content?.['application/json'];
        if (!media || media.example !== undefined || media.examples !== undefined) continue;
        const schemaExample = resolve(doc, media.schema)?.examples?.[0];
        const example =
          schemaExample?.error?.code === code
            ? schemaExample
            : { error: { code, message: String(response.description ?? code) } };
        // inline: a shared response object may serve several statuses
        responses[status] = {
          ...response,
          content: { ...response.content, 'application/json': { ...media, example } },
        };
      }
    }
  }
}

/** The first value the contract's own examples give for `name`. */
function exampleValue(doc: Doc, name: string): unknown {
  let found: unknown;
  const walk = (v: DocNode): void => {
    if (found !== undefined || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v[name] === 'string') found = v[name];
    else Object.values(v).forEach(walk);
  };
  for (const schema of Object.values<DocNode>(doc.components?.schemas ?? {})) walk(schema.examples);
  return found;
}

function patternedIds(doc: Doc): void {
  const cache = new Map<string, unknown>();
  const visit = (node: DocNode): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (node.properties && typeof node.properties === 'object') {
      for (const [name, prop] of Object.entries<DocNode>(node.properties)) {
        if (!prop || typeof prop.pattern !== 'string' || prop.example !== undefined || prop.examples !== undefined)
          continue;
        if (!cache.has(name)) cache.set(name, exampleValue(doc, name));
        const value = cache.get(name);
        if (value !== undefined) prop.example = value;
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(doc.components?.schemas);
}

/** Adds the examples above to a served copy of a contract document (never to the contract itself). */
export function withDerivedExamples(doc: Doc): Doc {
  errorExamples(doc);
  patternedIds(doc);
  return doc;
}

/** The idempotency keys the contract's examples use: "Try it out" swaps them for fresh ones. */
export function exampleIdempotencyKeys(doc: Doc): string[] {
  const keys = new Set<string>();
  const walk = (v: DocNode): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v.idempotencyKey === 'string') keys.add(v.idempotencyKey);
    Object.values(v).forEach(walk);
  };
  walk(doc.components?.schemas);
  walk(doc.paths);
  return [...keys];
}
