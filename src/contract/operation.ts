// One operation of an OpenAPI document, compiled once: its parameters, its request body validator and, per
// documented status, its response body validator and required headers.

import { invalid } from '../errors/errors.js';
import { lazyValidator, type Ajv, type ValidateFunction } from './ajv.js';
import type { ApiName, OperationContract } from './index.js';
import { MAX_MESSAGES, overBudget } from './budget.js';
import { formatErrors, summarizeErrors } from './messages.js';
import { ParamSet } from './params.js';
import type { Doc } from './doc.js';

interface HeaderSpec {
  name: string;
  required: boolean;
  integer: boolean;
  validate: (() => ValidateFunction) | null;
}

interface ResponseSpec {
  status: string;
  body: (() => ValidateFunction) | null;
  headers: HeaderSpec[];
}

function jsonSchemaOf(content: Doc | undefined): Doc | null {
  if (!content) return null;
  const media = content['application/json'] ?? Object.entries(content).find(([t]) => /json/i.test(t))?.[1];
  return media?.schema ?? null;
}

export function compileOperation(
  ajv: Ajv,
  api: ApiName,
  method: string,
  path: string,
  pathItem: Doc,
  op: Doc,
): { contract: OperationContract; precompile: () => void } {
  // Operation-level parameters override path-level ones of the same name and location.
  const byKey = new Map<string, Doc>();
  for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) byKey.set(`${p.in}:${p.name}`, p);
  const params = [...byKey.values()];
  const query = new ParamSet(ajv, params, 'query');
  const pathParams = new ParamSet(ajv, params, 'path');

  const bodySchema = jsonSchemaOf(op.requestBody?.content);
  const bodyRequired = Boolean(op.requestBody?.required);
  const bodyValidator = bodySchema ? lazyValidator(ajv, bodySchema) : null;

  const responses = new Map<string, ResponseSpec>();
  for (const [status, res] of Object.entries<Doc>(op.responses ?? {})) {
    const schema = jsonSchemaOf(res.content);
    const headers: HeaderSpec[] = Object.entries<Doc>(res.headers ?? {}).map(([name, h]) => ({
      name,
      required: Boolean(h.required),
      integer: h.schema?.type === 'integer',
      validate: h.schema ? lazyValidator(ajv, h.schema) : null,
    }));
    responses.set(status.toUpperCase(), { status, body: schema ? lazyValidator(ajv, schema) : null, headers });
  }
  const documented = [...responses.keys()].join(', ');

  const findResponse = (status: number): ResponseSpec | undefined =>
    responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get('DEFAULT');

  const operationId = String(op.operationId);
  const precompile = () => {
    query.precompile();
    pathParams.precompile();
    bodyValidator?.();
    for (const r of responses.values()) {
      r.body?.();
      for (const h of r.headers) h.validate?.();
    }
  };
  const contract: OperationContract = {
    api,
    operationId,
    method: method.toUpperCase(),
    path,
    parseQuery: (p) => query.parseQuery(p),
    parsePath: (p) => pathParams.parsePath(p),
    checkBody(body) {
      if (!bodyValidator) return;
      const checkBodyFn = bodyValidator();
      if (body === undefined) {
        if (bodyRequired) throw invalid('request body is required', 'body');
        return;
      }
      const over = overBudget(body);
      if (over) throw invalid(over, 'body');
      if (!checkBodyFn(body)) {
        const first = checkBodyFn.errors?.[0];
        const field = first ? firstField(first.instancePath, first.params as Doc) : 'body';
        throw invalid(summarizeErrors(checkBodyFn.errors, '', 'body', MAX_MESSAGES), field);
      }
    },
    checkResponse(status, body, headers) {
      const spec = findResponse(status);
      if (!spec) return [`status ${status} is not documented for ${operationId} (documented: ${documented})`];
      const problems: string[] = [];
      const validateBody = spec.body?.();
      if (validateBody && !validateBody(body)) {
        for (const m of formatErrors(validateBody.errors, 'body', 'body')) problems.push(m);
      }
      if (headers) {
        for (const h of spec.headers) {
          const value = headers.get(h.name);
          if (value === null) {
            if (h.required) problems.push(`header ${h.name} is missing`);
            continue;
          }
          if (!h.validate) continue;
          let parsed: unknown = value;
          if (h.integer) parsed = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
          const validateHeader = h.validate();
          if (!validateHeader(parsed)) {
            for (const m of formatErrors(validateHeader.errors, `header ${h.name}`, `header ${h.name}`))
              problems.push(`${m} (got '${value}')`);
          }
        }
      }
      return problems;
    },
  };
  return { contract, precompile };
}

/** The dotted path of the field an error is about, for DomainError details.field. */
function firstField(instancePath: string, params: Doc): string {
  const base = instancePath.split('/').slice(1).join('.');
  const leaf = params.missingProperty ?? params.additionalProperty ?? params.tag;
  return [base, leaf].filter(Boolean).join('.') || 'body';
}
