// Query and path parameters of one operation, compiled once: strings are coerced to the schema's type
// (integers only as plain decimal digits), defaults applied, and unknown or repeated parameters refused.
// Every failure is a 400 invalid_request whose message names the parameter.

import { invalid } from '../errors/errors.js';
import { lazyValidator, type Ajv, type ValidateFunction } from './ajv.js';
import { describeNumber, formatErrors } from './messages.js';
import type { Doc } from './doc.js';

interface ParamSpec {
  name: string;
  required: boolean;
  type: 'string' | 'integer' | 'number' | 'boolean';
  hasDefault: boolean;
  default: unknown;
  validate: () => ValidateFunction;
  schema: Doc;
}

const INTEGER = /^-?(0|[1-9]\d*)$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

function primaryType(schema: Doc): ParamSpec['type'] {
  const t = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
  return t === 'integer' || t === 'number' || t === 'boolean' ? t : 'string';
}

export class ParamSet {
  private readonly specs = new Map<string, ParamSpec>();
  private readonly withDefaults: ParamSpec[];
  private readonly requiredSpecs: ParamSpec[];

  constructor(
    ajv: Ajv,
    params: readonly Doc[],
    private readonly where: 'query' | 'path',
  ) {
    for (const p of params) {
      if (p.in !== where) continue;
      const schema = (p.schema ?? {}) as Doc;
      this.specs.set(p.name, {
        name: p.name,
        required: Boolean(p.required),
        type: primaryType(schema),
        hasDefault: schema.default !== undefined,
        default: schema.default,
        validate: lazyValidator(ajv, schema),
        schema,
      });
    }
    this.withDefaults = [...this.specs.values()].filter((s) => s.hasDefault);
    this.requiredSpecs = [...this.specs.values()].filter((s) => s.required);
  }

  /** Compiles every parameter validator now. */
  precompile(): void {
    for (const s of this.specs.values()) s.validate();
  }

  get names(): string[] {
    return [...this.specs.keys()];
  }

  /** Parses a query string: unknown and repeated parameters are refused; defaults are applied. */
  parseQuery(params: URLSearchParams): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, raw] of params) {
      const spec = this.specs.get(name);
      if (!spec) {
        const allowed = this.names;
        throw invalid(
          allowed.length
            ? `unknown query parameter '${name}'; this endpoint accepts ${allowed.join(', ')}`
            : `unknown query parameter '${name}'; this endpoint takes no query parameters`,
          name,
        );
      }
      if (Object.hasOwn(out, name)) throw invalid(`query parameter ${name} must be given at most once`, name);
      out[name] = this.coerce(spec, raw);
    }
    return this.finish(out);
  }

  /** Validates path parameters (already split out by the router). */
  parsePath(params: Record<string, string>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(params)) {
      const spec = this.specs.get(name);
      if (!spec) throw invalid(`unknown path parameter '${name}'`, name);
      out[name] = this.coerce(spec, raw);
    }
    return this.finish(out);
  }

  private finish(out: Record<string, unknown>): Record<string, unknown> {
    for (const s of this.requiredSpecs) {
      if (!Object.hasOwn(out, s.name)) throw invalid(`${this.where} parameter ${s.name} is required`, s.name);
    }
    for (const s of this.withDefaults) if (!Object.hasOwn(out, s.name)) out[s.name] = s.default;
    return out;
  }

  private coerce(spec: ParamSpec, raw: string): unknown {
    let value: unknown = raw;
    if (spec.type === 'integer' || spec.type === 'number') {
      if (!(spec.type === 'integer' ? INTEGER : NUMBER).test(raw)) {
        throw invalid(`${spec.name} must be ${describeNumber(spec.schema)} (got '${clip(raw)}')`, spec.name);
      }
      value = Number(raw);
    } else if (spec.type === 'boolean') {
      if (raw !== 'true' && raw !== 'false')
        throw invalid(`${spec.name} must be true or false (got '${clip(raw)}')`, spec.name);
      value = raw === 'true';
    }
    const validate = spec.validate();
    if (!validate(value)) {
      const msgs = formatErrors(validate.errors, spec.name, spec.name);
      throw invalid(`${msgs.join('; ')} (got '${clip(raw)}')`, spec.name);
    }
    return value;
  }
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
