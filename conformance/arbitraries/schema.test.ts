import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHarnessContract } from '../contract.js';
import { arbitraryFor, fullValue, minimalValue, UnsupportedSchemaError, type JsonSchema } from './schema.js';

const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as typeof import('ajv/dist/2020.js').default;
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof import('ajv-formats').default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const SAMPLES: Record<string, JsonSchema> = {
  bounded: {
    type: 'object',
    required: ['n', 'i'],
    additionalProperties: false,
    properties: {
      n: { type: 'number', minimum: 0, exclusiveMaximum: 1 },
      i: { type: 'integer', minimum: -3, maximum: 3 },
      s: { type: 'string', minLength: 2, maxLength: 5 },
    },
  },
  nullableUnion: { type: ['string', 'null'], format: 'date-time' },
  enumsAndConst: {
    type: 'object',
    required: ['k', 'e'],
    properties: { k: { const: 'x' }, e: { enum: ['a', 'b', 3] } },
  },
  pattern: { type: 'string', pattern: '^scr_.+' },
  oneOf: {
    oneOf: [
      {
        type: 'object',
        required: ['kind', 'a'],
        additionalProperties: false,
        properties: { kind: { const: 'A' }, a: { type: 'string' } },
      },
      {
        type: 'object',
        required: ['kind'],
        additionalProperties: false,
        properties: {
          kind: { const: 'B' },
          b: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3, uniqueItems: true },
        },
      },
    ],
  },
  allOf: {
    allOf: [
      { type: 'object', required: ['a'], properties: { a: { type: 'boolean' } } },
      { required: ['b'], properties: { b: { type: 'string', format: 'email' } } },
    ],
  },
  uri: { type: 'string', format: 'uri' },
};

describe('arbitraryFor', () => {
  for (const [name, schema] of Object.entries(SAMPLES)) {
    it(`generates only valid values: ${name}`, () => {
      const validate = ajv.compile(schema);
      fc.assert(
        fc.property(arbitraryFor(schema), (v) => validate(v) === true),
        { numRuns: 200 },
      );
      expect(validate(minimalValue(schema))).toBe(true);
      expect(validate(fullValue(schema))).toBe(true);
    });
  }

  it('keeps the bounds of each schema of one pattern and format (their arbitraries are made once per process)', () => {
    for (const schema of [
      { type: 'string', pattern: '^[a-z]+$', minLength: 6, maxLength: 7 },
      { type: 'string', pattern: '^[a-z]+$', maxLength: 2 },
      { type: 'string', pattern: '^[a-z]+$', minLength: 3 },
      { type: 'string', format: 'email', maxLength: 9 },
      { type: 'string', format: 'email', minLength: 20 },
      { type: 'string', format: 'uri', maxLength: 22 },
    ] satisfies JsonSchema[]) {
      const validate = ajv.compile(schema);
      fc.assert(
        fc.property(arbitraryFor(schema), (v) => validate(v) === true),
        { numRuns: 50 },
      );
      // the same values for a seed, whichever run asks
      expect(fc.sample(arbitraryFor(schema), { seed: 3, numRuns: 5 })).toEqual(
        fc.sample(arbitraryFor(schema), { seed: 3, numRuns: 5 }),
      );
    }
  });

  it('refuses keywords it does not understand instead of ignoring them', () => {
    expect(() => arbitraryFor({ type: 'string', not: { const: 'x' } })).toThrow(UnsupportedSchemaError);
    expect(() => arbitraryFor({ type: 'integer', multipleOf: 3 })).toThrow(/multipleOf/);
  });

  it('ignores annotations and x- extensions', () => {
    expect(() => arbitraryFor({ type: 'string', description: 'd', examples: ['a'], 'x-policy': true })).not.toThrow();
  });

  it('derives valid SubmitRequest and ApplyRequest bodies from the contract', async () => {
    const c = await loadHarnessContract();
    for (const [op, name] of [
      ['submitScreen', 'SubmitRequest'],
      ['applyToJob', 'ApplyRequest'],
    ] as const) {
      const schema = c.operation(op).requestBody!;
      fc.assert(
        fc.property(arbitraryFor(schema), (v) => {
          expect(c.validate(name, v)).toEqual([]);
        }),
        { numRuns: 100 },
      );
      expect(c.validate(name, minimalValue(schema))).toEqual([]);
      expect(c.validate(name, fullValue(schema))).toEqual([]);
    }
  });
});
