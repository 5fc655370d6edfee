// A small JSON Schema (2020-12 / OpenAPI 3.1) to fast-check compiler for VALID values: types (and type
// lists), enum, const, numeric and length bounds, simple patterns, a few formats, required/optional
// properties, closed objects, arrays, oneOf/anyOf/allOf. Keywords that constrain values but are not
// supported are refused loudly (a generator that silently ignores a constraint would produce invalid
// "valid" data); annotations and x-* extensions are ignored.

import fc from 'fast-check';
import type { SchemaNode } from '../json.js';

export type JsonSchema = Record<string, SchemaNode>;

export interface ArbitraryOptions {
  /** Characters generated above a string's minLength (default 16). */
  extraStringLength?: number;
  /** Items generated above an array's minItems (default 4). */
  extraItems?: number;
  /** Generators for named properties (wins over the schema), e.g. unique idempotency keys. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
}

export class UnsupportedSchemaError extends Error {
  constructor(keyword: string, at: string) {
    super(`schema keyword '${keyword}' at ${at} is not supported by the arbitrary compiler`);
    this.name = 'UnsupportedSchemaError';
  }
}

const SUPPORTED = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'oneOf',
  'anyOf',
  'allOf',
  'nullable',
]);
const ANNOTATIONS = new Set([
  'title',
  'description',
  'example',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  '$comment',
  'discriminator',
  'externalDocs',
  'xml',
  'contentMediaType',
  'contentEncoding',
  '$anchor',
  '$defs',
  'definitions',
]);

/** Printable ASCII most of the time, plus characters that stress JSON escaping and Unicode handling. */
const CHAR = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ß', 'Ω', '名', 'ñ', '🙂', '"', '\\', '\t', '<', '&', 'İ') },
);

export const isObject = (v: unknown): v is Record<string, SchemaNode> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Checks that every keyword of `schema` is understood; throws on one that is not. */
export function assertSupported(schema: JsonSchema, at: string): void {
  for (const k of Object.keys(schema)) {
    if (SUPPORTED.has(k) || ANNOTATIONS.has(k) || k.startsWith('x-')) continue;
    throw new UnsupportedSchemaError(k, at);
  }
}

/** allOf merged into one schema (properties and required combined; other keywords, last wins). */
export function mergeSchemas(...parts: JsonSchema[]): JsonSchema {
  const out: JsonSchema = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      if (k === 'properties') out.properties = { ...out.properties, ...v };
      else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...v])];
      else out[k] = v;
    }
  }
  return out;
}

/** The schema with allOf folded in; oneOf/anyOf kept. */
export function flatten(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  return flatten(mergeSchemas(rest, ...allOf.map((s: JsonSchema) => flatten(s))));
}

/** The alternatives of a oneOf/anyOf node, each merged with the node's own keywords. */
export function variantsOf(schema: JsonSchema): JsonSchema[] | null {
  const alts = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(alts)) return null;
  const { oneOf: _o, anyOf: _a, discriminator: _d, ...base } = schema;
  return alts.map((v: JsonSchema) => flatten(mergeSchemas(base, flatten(v))));
}

/** The JSON types a schema admits (inferred from its keywords when `type` is absent). */
export function typesOf(schema: JsonSchema): string[] {
  let types: string[];
  if (Array.isArray(schema.type)) types = [...schema.type];
  else if (typeof schema.type === 'string') types = [schema.type];
  else if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) types = ['object'];
  else if ('items' in schema || 'minItems' in schema || 'maxItems' in schema) types = ['array'];
  else if ('minLength' in schema || 'maxLength' in schema || 'pattern' in schema || 'format' in schema)
    types = ['string'];
  else if ('minimum' in schema || 'maximum' in schema || 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema)
    types = ['number'];
  else types = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'];
  if (schema.nullable === true && !types.includes('null')) types.push('null');
  return types;
}

const SMALL_JSON = fc.jsonValue({ maxDepth: 2 });

/** fc.integer over [min, max] clamped to the 32-bit range fast-check supports; null when empty. */
function intBetween(min: number, max: number): fc.Arbitrary<number> | null {
  const lo = Math.max(min, -0x80000000);
  const hi = Math.min(max, 0x7fffffff);
  return lo <= hi ? fc.integer({ min: lo, max: hi }) : null;
}

function numberBounds(schema: JsonSchema, integer: boolean) {
  let min: number | undefined = schema.minimum;
  let max: number | undefined = schema.maximum;
  let minExcluded = false;
  let maxExcluded = false;
  if (typeof schema.exclusiveMinimum === 'number' && (min === undefined || schema.exclusiveMinimum >= min)) {
    min = schema.exclusiveMinimum;
    minExcluded = true;
  }
  if (typeof schema.exclusiveMaximum === 'number' && (max === undefined || schema.exclusiveMaximum <= max)) {
    max = schema.exclusiveMaximum;
    maxExcluded = true;
  }
  if (integer) {
    if (min !== undefined) min = minExcluded ? Math.floor(min) + 1 : Math.ceil(min);
    if (max !== undefined) max = maxExcluded ? Math.ceil(max) - 1 : Math.floor(max);
  }
  return { min, max, minExcluded, maxExcluded };
}

function stringArbitrary(
  schema: JsonSchema,
  opts: Required<Omit<ArbitraryOptions, 'overrides'>>,
  at: string,
): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.min(schema.maxLength ?? Number.MAX_SAFE_INTEGER, minLength + opts.extraStringLength);
  const fits = (s: string) => {
    const n = [...s].length;
    return n >= minLength && n <= (schema.maxLength ?? Infinity);
  };
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return EMAIL().filter(fits);
    case 'uri':
    case 'url':
      return URI().filter(fits);
    case 'uuid':
      return fc.uuid();
    case undefined:
      break;
    default:
      if (!schema.pattern) throw new UnsupportedSchemaError(`format: ${schema.format}`, at);
  }
  if (typeof schema.pattern === 'string') {
    const key = `${schema.pattern}\u0000${minLength}\u0000${schema.maxLength ?? ''}`;
    let arb = MATCHING.get(key);
    if (!arb)
      MATCHING.set(key, (arb = fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'small' }).filter(fits)));
    return arb;
  }
  return fc.string({ unit: CHAR, minLength, maxLength });
}

/** A value made when first asked for, then kept. */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

const EMAIL = once(() =>
  fc
    .tuple(
      fc.stringMatching(/^[a-z0-9]{1,8}([._-][a-z0-9]{1,6}){0,2}$/),
      fc.stringMatching(/^[a-z0-9]{1,12}$/),
      fc.constantFrom('com', 'id', 'co.id', 'org', 'dev'),
    )
    .map(([l, d, t]) => `${l}@${d}.${t}`),
);

const URI = once(() =>
  fc
    .tuple(
      fc.constantFrom('https', 'http'),
      fc.stringMatching(/^[a-z0-9]{1,10}$/),
      fc.constantFrom('com', 'example', 'id'),
      fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 3 }),
    )
    .map(([s, h, t, p]) => `${s}://${h}.${t}/${p.join('/')}`),
);

/**
 * The arbitrary of each pattern (with its length bounds), made once per process as the e-mail and URI ones are:
 * making one reads every character its classes admit (`.` under the `u` flag admits every code point). The e-mail
 * one was measured: making it took 18% of a short run's CPU. An arbitrary keeps no state between draws.
 */
const MATCHING = new Map<string, fc.Arbitrary<string>>();

/** Compiles `schema` into an arbitrary of valid values. */
export function arbitraryFor(
  schema: JsonSchema | boolean,
  options: ArbitraryOptions = {},
  at = '#',
): fc.Arbitrary<unknown> {
  const opts = { extraStringLength: options.extraStringLength ?? 16, extraItems: options.extraItems ?? 4 };
  if (schema === true) return SMALL_JSON;
  if (schema === false) throw new Error(`schema at ${at} admits no value`);
  assertSupported(schema, at);
  const s = flatten(schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const variants = variantsOf(s);
  if (variants) return fc.oneof(...variants.map((v, i) => arbitraryFor(v, options, `${at}/oneOf/${i}`)));
  const hasConstraints = Object.keys(s).some((k) => SUPPORTED.has(k));
  if (!hasConstraints) return SMALL_JSON;
  const arbs = typesOf(s).map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const b = numberBounds(s, true);
        return intBetween(b.min ?? -1_000_000, b.max ?? 1_000_000) ?? fc.constant(b.min ?? 0);
      }
      case 'number': {
        const b = numberBounds(s, false);
        const min = b.min ?? -1e9;
        const max = b.max ?? 1e9;
        const double = fc
          .double({
            min,
            max,
            minExcluded: b.minExcluded,
            maxExcluded: b.maxExcluded,
            noNaN: true,
            noDefaultInfinity: true,
          })
          .map((x) => (Object.is(x, -0) ? 0 : x));
        const ints = intBetween(Math.ceil(min + (b.minExcluded ? 1 : 0)), Math.floor(max - (b.maxExcluded ? 1 : 0)));
        return ints ? fc.oneof(ints, double) : double;
      }
      case 'string':
        return stringArbitrary(s, opts, at);
      case 'array': {
        const item = s.items === undefined ? SMALL_JSON : arbitraryFor(s.items, options, `${at}/items`);
        const minLength = s.minItems ?? 0;
        const maxLength = Math.min(s.maxItems ?? Number.MAX_SAFE_INTEGER, minLength + opts.extraItems);
        return s.uniqueItems
          ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(item, { minLength, maxLength });
      }
      case 'object':
        return objectArbitrary(s, options, at);
      default:
        throw new UnsupportedSchemaError(`type: ${t}`, at);
    }
  });
  return arbs.length === 1 ? arbs[0] : fc.oneof(...arbs);
}

function objectArbitrary(s: JsonSchema, options: ArbitraryOptions, at: string): fc.Arbitrary<unknown> {
  const props: Record<string, JsonSchema> = s.properties ?? {};
  const required: string[] = s.required ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(props)) {
    model[name] = options.overrides?.[name] ?? arbitraryFor(sub, options, `${at}/properties/${name}`);
  }
  for (const name of required) if (!(name in model)) model[name] = options.overrides?.[name] ?? SMALL_JSON;
  if (Object.keys(model).length === 0) {
    // a free-form object: a few arbitrary entries unless it is closed
    return s.additionalProperties === false
      ? fc.constant({})
      : fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/), SMALL_JSON, { maxKeys: 3 });
  }
  return fc.record(model, { requiredKeys: required.filter((r) => r in model) });
}

/** The smallest valid value: required properties only, arrays at minItems, strings at minLength, numbers near 0. */
export function minimalValue(schema: JsonSchema | boolean): unknown {
  if (schema === true || schema === false) return null;
  const s = flatten(schema);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const variants = variantsOf(s);
  if (variants) return minimalValue(variants[0]);
  const types = typesOf(s);
  const t = types.find((x) => x !== 'null') ?? 'null';
  switch (t) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      const b = numberBounds(s, t === 'integer');
      const lo = b.min === undefined ? -Infinity : b.minExcluded ? b.min + 1 : b.min;
      const hi = b.max === undefined ? Infinity : b.maxExcluded ? b.max - 1 : b.max;
      return Math.min(Math.max(0, lo), hi);
    }
    case 'string':
      return sampleOne(stringArbitrary(s, { extraStringLength: 0, extraItems: 0 }, '#'));
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => minimalValue(s.items ?? {}));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const r of s.required ?? []) out[r] = minimalValue(s.properties?.[r] ?? {});
      return out;
    }
    default:
      return null;
  }
}

/** A valid value with every optional property present and arrays holding an item (leaves at their minimal value). */
export function fullValue(schema: JsonSchema | boolean): unknown {
  if (schema === true || schema === false) return null;
  const s = flatten(schema);
  const variants = variantsOf(s);
  if (variants) return fullValue(variants[variants.length - 1]);
  if (typesOf(s)[0] === 'array' && (s.maxItems ?? 1) >= 1) {
    return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => fullValue(s.items ?? {}));
  }
  if (!typesOf(s).includes('object') || !s.properties) return minimalValue(s);
  const out: Record<string, unknown> = {};
  for (const [k, sub] of Object.entries<JsonSchema>(s.properties)) out[k] = fullValue(sub);
  return out;
}

function sampleOne<T>(arb: fc.Arbitrary<T>): T {
  return fc.sample(arb, { seed: 7, numRuns: 1 })[0];
}
