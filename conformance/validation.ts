// Response and payload validation at two levels, from the same dereferenced contract: the full
// schema (specification + sandbox policy) and the specification-only schema (every keyword marked
// `x-policy` stripped, every node or response marked policy as a whole relaxed). A problem the
// specification-only schema also finds is a `must` problem; one only the full schema finds is policy.

import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { HarnessContract } from './contract.js';
import { isObject, type JsonSchema } from './arbitraries/schema.js';
import type { SchemaNode } from './json.js';

// ajv and ajv-formats are CommonJS; under NodeNext their default export sits one level down.
const interop = <T>(m: T): T extends { default: infer D } ? D : T =>
  ((m as { default?: unknown }).default ?? m) as T extends { default: infer D } ? D : T;
const Ajv2020 = interop(Ajv2020Module);
const addFormats = interop(addFormatsModule);

export interface Problem {
  /** JSON pointer into the body ('' for the whole body), or `header:<name>` / `status`. */
  at: string;
  message: string;
}

export interface Verdict {
  must: Problem[];
  policy: Problem[];
}

/** A deep copy with policy keywords removed; nodes that are policy as a whole become `{}` (anything). */
export function specOnly(node: unknown, memo = new Map<object, unknown>()): unknown {
  if (Array.isArray(node)) return node.map((n) => specOnly(n, memo));
  if (!isObject(node)) return node;
  if (memo.has(node)) return memo.get(node);
  const kws = node['x-policy-keywords'];
  if (node['x-policy'] === true && !Array.isArray(kws)) {
    memo.set(node, {});
    return {};
  }
  const drop = new Set<string>(node['x-policy'] === true ? kws : []);
  const out: Record<string, unknown> = {};
  memo.set(node, out);
  for (const [k, v] of Object.entries(node)) if (!drop.has(k)) out[k] = specOnly(v, memo);
  return out;
}

function problemsOf(fn: ValidateFunction, value: unknown): Problem[] {
  if (fn(value)) return [];
  return (fn.errors ?? []).map((e) => ({
    at: e.instancePath,
    message: `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` ('${(e.params as SchemaNode).additionalProperty}')` : ''}${e.keyword === 'enum' ? ` (${JSON.stringify((e.params as SchemaNode).allowedValues)})` : ''}`,
  }));
}

const key = (p: Problem) => `${p.at}\u0000${p.message}`;

function split(full: Problem[], spec: Problem[]): Verdict {
  const specKeys = new Set(spec.map(key));
  return { must: spec, policy: full.filter((p) => !specKeys.has(key(p))) };
}

/**
 * One validator per contract in a process, shared by its runs: a schema is compiled once, not once per run (a
 * test suite or a CI job that runs the harness many times in one process spent a tenth of each short run on it).
 * A compiled schema keeps no state between two calls.
 */
const validators = new WeakMap<HarnessContract, ContractValidator>();

export function validatorFor(contract: HarnessContract): ContractValidator {
  let v = validators.get(contract);
  if (!v) validators.set(contract, (v = new ContractValidator(contract)));
  return v;
}

export class ContractValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly cache = new Map<string, { full: ValidateFunction; spec: ValidateFunction }>();

  constructor(private readonly contract: HarnessContract) {
    addFormats(this.ajv);
  }

  private compiled(cacheKey: string, schema: JsonSchema) {
    let c = this.cache.get(cacheKey);
    if (!c) {
      c = { full: this.ajv.compile(schema), spec: this.ajv.compile(specOnly(schema) as JsonSchema) };
      this.cache.set(cacheKey, c);
    }
    return c;
  }

  /** Validates a value against a named component schema (or webhook body schema). */
  schema(name: string, value: unknown): Verdict {
    const c = this.compiled(`schema:${name}`, this.contract.schema(name));
    return split(problemsOf(c.full, value), problemsOf(c.spec, value));
  }

  /** The response object documented for a status, and whether only policy documents it. */
  responseFor(operationId: string, status: number): { response: SchemaNode; policy: boolean } | null {
    const op = this.contract.operation(operationId);
    const r = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    return r ? { response: r, policy: r['x-policy'] === true } : null;
  }

  /**
   * Validates a response: documented status, body schema and documented required headers. `specStatuses`
   * are the statuses the specification itself documents for the operation (undocumented ones are `must`).
   */
  response(
    operationId: string,
    status: number,
    body: unknown,
    headers: Record<string, string>,
    specStatuses: readonly number[],
  ): Verdict {
    const op = this.contract.operation(operationId);
    const verdict: Verdict = { must: [], policy: [] };
    const doc = this.responseFor(operationId, status);
    if (!specStatuses.includes(status)) {
      const msg = `status ${status} is not documented for ${op.operationId} (the specification documents ${specStatuses.join(', ')})`;
      (doc ? verdict.policy : verdict.must).push({
        at: 'status',
        message: doc ? `${msg}; only sandbox policy documents it` : msg,
      });
    }
    if (!doc) return verdict;
    const schema = doc.response.content?.['application/json']?.schema;
    if (schema) {
      const c = this.compiled(`resp:${operationId}:${status}`, schema);
      const v = split(problemsOf(c.full, body), problemsOf(c.spec, body));
      verdict.must.push(...(doc.policy ? [] : v.must));
      verdict.policy.push(...(doc.policy ? v.must : []), ...v.policy);
    }
    for (const [name, h] of Object.entries<SchemaNode>(doc.response.headers ?? {})) {
      const policy = doc.policy || h['x-policy'] === true;
      const value = headers[name.toLowerCase()];
      if (value === undefined) {
        if (h.required)
          (policy ? verdict.policy : verdict.must).push({ at: `header:${name}`, message: `header ${name} is missing` });
        continue;
      }
      if (!h.schema) continue;
      const parsed =
        h.schema.type === 'integer' || h.schema.type === 'number'
          ? /^-?\d+(\.\d+)?$/.test(value.trim())
            ? Number(value)
            : value
          : value;
      const c = this.compiled(`hdr:${operationId}:${status}:${name}`, h.schema);
      const v = split(problemsOf(c.full, parsed), problemsOf(c.spec, parsed));
      const rename = (p: Problem): Problem => ({
        at: `header:${name}`,
        message: `header ${name}: '${value}' ${p.message.replace(/^\(body\) /, '')}`,
      });
      (policy ? verdict.policy : verdict.must).push(...v.must.map(rename));
      verdict.policy.push(...v.policy.map(rename));
    }
    return verdict;
  }
}
