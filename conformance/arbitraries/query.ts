// Query-string arbitraries derived from an operation's parameter schemas: valid combinations (each
// optional parameter present or not, values within their enums and bounds) and invalid ones (one
// parameter given a value its schema refuses, or a parameter the operation does not define).

import fc from 'fast-check';
import { mutationsOf, type MutationKind } from './mutate.js';
import { arbitraryFor, type JsonSchema } from './schema.js';

export interface QueryParam {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export type Query = Record<string, string>;

export interface QueryMutation {
  kind: MutationKind | 'unknown-parameter';
  param: string;
  description: string;
  policy: boolean;
  query: Query;
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Valid query strings; `overrides` replace a parameter's generator, `omit` leaves parameters out. */
export function validQuery(
  params: QueryParam[],
  opts: { overrides?: Record<string, fc.Arbitrary<unknown>>; omit?: string[] } = {},
): fc.Arbitrary<Query> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params) {
    if (opts.omit?.includes(p.name)) continue;
    model[p.name] = (opts.overrides?.[p.name] ?? arbitraryFor(p.schema, { extraStringLength: 12 })).map(text);
  }
  return fc.record(model, { requiredKeys: params.filter((p) => p.required && p.name in model).map((p) => p.name) });
}

const VALUE_KINDS: MutationKind[] = [
  'wrong-type',
  'bad-enum',
  'below-minimum',
  'above-maximum',
  'not-integer',
  'too-short',
  'too-long',
  'pattern-mismatch',
  'bad-format',
];

/** Every single-parameter defect of a valid query. */
export function queryMutations(params: QueryParam[], valid: Query, base: Record<string, unknown>): QueryMutation[] {
  const out: QueryMutation[] = [];
  for (const p of params) {
    const sample = base[p.name];
    if (sample === undefined) continue;
    for (const m of mutationsOf(p.schema, sample)) {
      if (!VALUE_KINDS.includes(m.kind)) continue;
      // a query value is always text: a wrong JSON type only shows for non-string parameters
      if (m.kind === 'wrong-type' && typeof m.value !== 'string') continue;
      out.push({
        kind: m.kind,
        param: p.name,
        description: `${p.name}=${text(m.value)}: ${m.description.replace(/^the body/, p.name)}`,
        policy: m.policy,
        query: { ...valid, [p.name]: text(m.value) },
      });
    }
  }
  out.push({
    kind: 'unknown-parameter',
    param: 'unexpected_param',
    description: "unknown parameter 'unexpected_param'",
    policy: true,
    query: { ...valid, unexpected_param: '1' },
  });
  return out;
}

/** Invalid query strings: one defect on a valid combination (defects on policy rules excluded unless asked). */
export function invalidQuery(
  params: QueryParam[],
  opts: { includePolicy?: boolean; omit?: string[]; overrides?: Record<string, fc.Arbitrary<unknown>> } = {},
): fc.Arbitrary<QueryMutation> {
  const used = params.filter((p) => !opts.omit?.includes(p.name));
  const raw: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of used) raw[p.name] = opts.overrides?.[p.name] ?? arbitraryFor(p.schema, { extraStringLength: 12 });
  return fc
    .tuple(fc.record(raw), fc.nat())
    .map(([base, i]) => {
      const valid: Query = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, text(v)]));
      const ms = queryMutations(used, valid, base).filter((m) => opts.includePolicy || !m.policy);
      return ms.length ? ms[i % ms.length] : null;
    })
    .filter((m): m is QueryMutation => m !== null);
}
