// The one JSON Schema compiler configuration: draft 2020-12, strict, with formats. OpenAPI's own schema
// keywords and this project's policy markers are declared explicitly, so any other unknown keyword in a
// contract fails at start-up instead of being silently ignored.

import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv and ajv-formats are CommonJS; under NodeNext their default export sits one level down.
const interop = <T>(m: T): T extends { default: infer D } ? D : T =>
  ((m as { default?: unknown }).default ?? m) as T extends { default: infer D } ? D : T;
const Ajv2020 = interop(Ajv2020Module);
const addFormats = interop(addFormatsModule);

export type Ajv = InstanceType<typeof Ajv2020>;
import type { ValidateFunction } from 'ajv/dist/2020.js';
export type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/** Where forAjv keeps a discriminator's allowed values. */
export const DISCRIMINATOR_VALUES = 'x-values';

/** Extension keywords a contract schema may carry (annotations only: they never change validation). */
export const ANNOTATION_KEYWORDS = [
  'x-policy',
  'x-policy-keywords',
  'x-decision',
  'example',
  'xml',
  'externalDocs',
] as const;

export function createAjv(options: { strict?: boolean } = {}): Ajv {
  const strict = options.strict ?? true;
  const ajv = new Ajv2020({
    strict,
    // Nullable fields are written `type: [string, 'null']`, which strictTypes would refuse without this.
    allowUnionTypes: true,
    // Report every problem at once; a caller fixing one field at a time would need many round trips.
    allErrors: true,
    discriminator: true,
    // Errors carry their schema node, so messages can state the whole rule ("an integer from 1 to 500").
    verbose: true,
    logger: strict ? undefined : false,
  });
  addFormats(ajv);
  for (const k of ANNOTATION_KEYWORDS)
    ajv.addKeyword({ keyword: k, schemaType: ['boolean', 'array', 'string', 'object'] });
  return ajv;
}

/**
 * A copy of a schema graph prepared for ajv: the OpenAPI discriminator `mapping` is replaced by the list of
 * its values (ajv selects the variant from each branch's `const` and refuses `mapping`; error messages still
 * want the values). Shared subschemas stay shared.
 */
export function forAjv<T>(schema: T): T {
  const copy = structuredClone(schema);
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    const rec = node as Record<string, unknown>;
    const d = rec.discriminator as Record<string, unknown> | undefined;
    if (d && typeof d === 'object' && 'mapping' in d) {
      rec.discriminator = { propertyName: d.propertyName, [DISCRIMINATOR_VALUES]: Object.keys(d.mapping as object) };
    }
    for (const v of Object.values(rec)) walk(v);
  };
  walk(copy);
  return copy;
}

/** Compiles a schema on first use, then reuses the validator: start-up stays fast, calls do no schema work. */
export function lazyValidator(ajv: Ajv, schema: object): () => ValidateFunction {
  let v: ValidateFunction | undefined;
  return () => (v ??= ajv.compile(schema));
}
