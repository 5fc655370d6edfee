// The harness's view of the contracts, through the project's one contract loader (the only module it
// takes from the service's code base): response validation, named schemas, and the dereferenced
// OpenAPI operations from which the arbitraries are derived.

import { loadContracts, type Contracts } from '../src/contract/index.js';
import type { JsonSchema } from './arbitraries/schema.js';
import type { SchemaNode } from './json.js';

export interface OperationSpec {
  api: 'screening' | 'jobs';
  operationId: string;
  method: string;
  path: string;
  /** Query parameters: name -> schema (and whether required). */
  query: { name: string; required: boolean; schema: JsonSchema }[];
  /** Path parameters. */
  pathParams: { name: string; schema: JsonSchema }[];
  requestBody: JsonSchema | null;
  statuses: number[];
  /** The dereferenced response objects by status key ('200', '4XX', 'default'). */
  responses: Record<string, SchemaNode>;
}

export interface HarnessContract {
  loader: Contracts;
  schema(name: string): JsonSchema;
  hasSchema(name: string): boolean;
  operation(operationId: string): OperationSpec;
  operations: OperationSpec[];
  validate(schemaName: string, value: unknown): string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The contract as the harness reads it: made once per process (every run of a process reads the same files). */
let harnessContract: Promise<HarnessContract> | null = null;

export function loadHarnessContract(): Promise<HarnessContract> {
  harnessContract ??= makeHarnessContract().catch((err: unknown) => {
    harnessContract = null;
    throw err;
  });
  return harnessContract;
}

async function makeHarnessContract(): Promise<HarnessContract> {
  const loader = await loadContracts();
  const docs = loader.dereferenced;
  const ops = new Map<string, OperationSpec>();
  for (const api of ['screening', 'jobs'] as const) {
    const doc = docs[api] ?? {};
    for (const [p, item] of Object.entries<SchemaNode>(doc.paths ?? {})) {
      for (const m of METHODS) {
        const op = item?.[m];
        if (!op?.operationId) continue;
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
        ops.set(op.operationId, {
          api,
          operationId: op.operationId,
          method: m.toUpperCase(),
          path: p,
          query: params
            .filter((x: SchemaNode) => x.in === 'query')
            .map((x: SchemaNode) => ({ name: x.name, required: !!x.required, schema: x.schema ?? {} })),
          pathParams: params
            .filter((x: SchemaNode) => x.in === 'path')
            .map((x: SchemaNode) => ({ name: x.name, schema: x.schema ?? {} })),
          requestBody: op.requestBody?.content?.['application/json']?.schema ?? null,
          statuses: Object.keys(op.responses ?? {})
            .filter((s) => /^\d{3}$/.test(s))
            .map(Number),
          responses: op.responses ?? {},
        });
      }
    }
  }
  // 'jobs:ErrorEnvelope' picks one document where both define the name
  const schemaOf = (name: string): JsonSchema | undefined => {
    const m = /^(screening|jobs):(.+)$/.exec(name);
    if (m) return docs[m[1] as 'screening' | 'jobs']?.components?.schemas?.[m[2]];
    return docs.screening?.components?.schemas?.[name] ?? docs.jobs?.components?.schemas?.[name];
  };
  return {
    loader,
    hasSchema: (name) => schemaOf(name) !== undefined,
    schema(name) {
      const s = schemaOf(name);
      if (!s) throw new Error(`the contract has no component schema '${name}'`);
      return s;
    },
    operation(operationId) {
      const op = ops.get(operationId);
      if (!op) throw new Error(`the contract has no operation '${operationId}'`);
      return op;
    },
    operations: [...ops.values()],
    validate: (name, value) => loader.validate(name, value),
  };
}
