// Request generators for the documented operations, all derived from the contract: request bodies
// from the operation's requestBody schema, query strings from its parameters. Invalid values are
// double-checked against the contract validator at the level they claim to break (a mutation the
// validator still accepts is dropped, so "invalid" data is never valid by accident).

import fc from 'fast-check';
import type { HarnessContract } from '../contract.js';
import type { ContractValidator } from '../validation.js';
import { invalidArbitrary, mutationsOf, type Mutation, type MutationKind } from './mutate.js';
import { invalidQuery, queryMutations, validQuery, type QueryMutation } from './query.js';
import { arbitraryFor, fullValue, minimalValue, type ArbitraryOptions, type JsonSchema } from './schema.js';

export interface BodyGenerators {
  schema: JsonSchema;
  valid: fc.Arbitrary<unknown>;
  /** Boundary examples: only the required fields, and every field present. */
  examples: unknown[];
  /** Mutations breaking a specification rule (or policy rules when `policy` is true). */
  invalid(policy?: boolean, kinds?: MutationKind[]): fc.Arbitrary<Mutation>;
  /**
   * Every single defect of the full valid example (each rule broken once, deterministically): tried
   * before the generated cases, so a run with few cases still breaks every rule.
   */
  invalidExamples(policy?: boolean): Mutation[];
}

export function bodyGenerators(
  contract: HarnessContract,
  validator: ContractValidator,
  operationId: string,
  opts: ArbitraryOptions = {},
): BodyGenerators {
  const op = contract.operation(operationId);
  if (!op.requestBody) throw new Error(`${operationId} has no JSON request body in the contract`);
  const schema = op.requestBody;
  const name = schemaName(contract, schema);
  const invalidAt = (m: Mutation, policy: boolean) => {
    if (!name) return true;
    const v = validator.schema(name, m.value);
    return policy ? v.must.length === 0 && v.policy.length > 0 : v.must.length > 0;
  };
  return {
    schema,
    valid: arbitraryFor(schema, opts),
    examples: [minimalValue(schema), fullValue(schema)],
    invalid: (policy = false, kinds) =>
      invalidArbitrary(schema, {
        ...opts,
        includePolicy: policy,
        kinds,
        accept: (m) => m.policy === policy && invalidAt(m, policy),
      }),
    invalidExamples: (policy = false) => {
      const seen = new Set<string>();
      return [fullValue(schema), minimalValue(schema)]
        .flatMap((v) => mutationsOf(schema, v))
        .filter(
          (m) => m.policy === policy && invalidAt(m, policy) && !seen.has(m.description) && seen.add(m.description),
        );
    },
  };
}

/** The component name of a (dereferenced) schema, found by identity or by deep equality. */
function schemaName(contract: HarnessContract, schema: JsonSchema): string | null {
  for (const api of ['screening', 'jobs'] as const) {
    const schemas = contract.loader.dereferenced[api]?.components?.schemas ?? {};
    for (const [n, s] of Object.entries(schemas)) if (s === schema) return `${api}:${n}`;
    const text = JSON.stringify(schema);
    for (const [n, s] of Object.entries(schemas)) if (JSON.stringify(s) === text) return `${api}:${n}`;
  }
  return null;
}

export interface QueryGenerators {
  valid(overrides?: Record<string, fc.Arbitrary<unknown>>, omit?: string[]): fc.Arbitrary<Record<string, string>>;
  invalid(policy?: boolean, overrides?: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<QueryMutation>;
  /** Every single-parameter defect of a query holding each parameter's boundary value (deterministic). */
  invalidExamples(policy?: boolean): QueryMutation[];
}

export function queryGenerators(contract: HarnessContract, operationId: string): QueryGenerators {
  const params = contract.operation(operationId).query;
  return {
    valid: (overrides, omit) => validQuery(params, { overrides, omit }),
    invalid: (policy = false, overrides) =>
      invalidQuery(params, { includePolicy: policy, overrides }).filter((m) => m.policy === policy),
    invalidExamples: (policy = false) => {
      const base = Object.fromEntries(
        params.map((p) => [p.name, fullValue(p.schema)]).filter(([, v]) => v !== undefined),
      );
      const valid = Object.fromEntries(
        Object.entries(base).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
      return queryMutations(params, valid, base).filter((m) => m.policy === policy);
    },
  };
}
