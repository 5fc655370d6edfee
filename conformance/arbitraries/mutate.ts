// Mutators that turn a VALID value into deliberately INVALID ones, one defect at a time: a required
// field dropped, a wrong JSON type, a number or length out of bounds, an unknown property on a closed
// object, the fields of two oneOf variants mixed, a bad enum value, a pattern or format mismatch.
// Each mutation says which field it broke and whether the rule it breaks is specification or policy
// (`x-policy` / `x-policy-keywords` in the contract), so must-level checks never rely on policy rules.

import fc from 'fast-check';
import {
  arbitraryFor,
  flatten,
  isObject,
  jsonTypeOf,
  minimalValue,
  typesOf,
  variantsOf,
  type ArbitraryOptions,
  type JsonSchema,
} from './schema.js';
import type { SchemaNode } from '../json.js';

export type MutationKind =
  | 'not-an-object'
  | 'missing-required'
  | 'wrong-type'
  | 'null-value'
  | 'unknown-property'
  | 'mixed-variants'
  | 'bad-enum'
  | 'below-minimum'
  | 'above-maximum'
  | 'not-integer'
  | 'too-short'
  | 'too-long'
  | 'too-few-items'
  | 'too-many-items'
  | 'pattern-mismatch'
  | 'bad-format';

export interface Mutation {
  kind: MutationKind;
  /** Dotted path of the broken field ('' for the whole value), e.g. candidate.kind, jobSpec.mustHaves[0]. */
  path: string;
  /** The last named segment of the path (what an error message should name). */
  field: string;
  description: string;
  /** True when the broken rule is policy, not specification. */
  policy: boolean;
  /** The whole mutated value. */
  value: unknown;
}

type Seg = string | number;

const pathText = (segs: Seg[]) =>
  segs.reduce<string>((acc, s) => (typeof s === 'number' ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
const lastName = (segs: Seg[]) => [...segs].reverse().find((s): s is string => typeof s === 'string') ?? '';

/** A copy of `root` with the node at `segs` replaced by `v`. */
function replaceAt(root: unknown, segs: Seg[], v: unknown): unknown {
  if (segs.length === 0) return v;
  const copy = structuredClone(root);
  let node: SchemaNode = copy;
  for (const s of segs.slice(0, -1)) node = node[s];
  node[segs[segs.length - 1]] = v;
  return copy;
}

/** A copy of `root` with property `key` removed from the object at `segs`. */
function deleteAt(root: unknown, segs: Seg[], key: string): unknown {
  const copy = structuredClone(root);
  let node: SchemaNode = copy;
  for (const s of segs) node = node[s];
  delete node[key];
  return copy;
}

/** Is keyword `kw` of this node policy? (`x-policy: true` alone makes every keyword policy.) */
function isPolicy(node: JsonSchema, kw: string, inherited: boolean): boolean {
  if (inherited) return true;
  if (node['x-policy'] !== true) return false;
  const kws = node['x-policy-keywords'];
  return Array.isArray(kws) ? kws.includes(kw) : true;
}

/** A value of a JSON type the node does not admit, or undefined when it admits every type. */
function wrongTypeValue(types: string[]): unknown {
  const candidates: [string, unknown][] = [
    ['string', 'not-a-valid-value'],
    ['number', 7.5],
    ['integer', 7],
    ['boolean', true],
    ['array', []],
    ['object', {}],
  ];
  const admits = (t: string) => types.includes(t) || (t === 'integer' && types.includes('number'));
  for (const [t, v] of candidates) if (!admits(t)) return v;
  return undefined;
}

/** Picks the oneOf/anyOf variant a value belongs to (by const-valued properties, then required keys). */
export function variantFor(variants: JsonSchema[], value: unknown): number {
  if (!isObject(value)) return 0;
  const score = (v: JsonSchema) => {
    let s = 0;
    for (const [k, p] of Object.entries<JsonSchema>(v.properties ?? {})) {
      if (p && 'const' in p) s += value[k] === p.const ? 10 : -100;
    }
    for (const r of v.required ?? []) s += r in value ? 1 : -5;
    return s;
  };
  let best = 0;
  variants.forEach((v, i) => {
    if (score(v) > score(variants[best])) best = i;
  });
  return best;
}

/** Every single-defect mutation of `value` (valid for `schema`). */
export function mutationsOf(schema: JsonSchema, value: unknown): Mutation[] {
  const out: Mutation[] = [];
  visit(schema, value, value, [], false, out, true);
  return out;
}

function visit(
  schema: JsonSchema,
  root: unknown,
  v: unknown,
  segs: Seg[],
  inherited: boolean,
  out: Mutation[],
  isRoot: boolean,
): void {
  let s = flatten(schema);
  const push = (kind: MutationKind, kw: string, description: string, value: unknown, node: JsonSchema = s) =>
    out.push({
      kind,
      path: pathText(segs),
      field: lastName(segs),
      description,
      policy: isPolicy(node, kw, inherited),
      value,
    });
  const policyNode = inherited || (s['x-policy'] === true && !Array.isArray(s['x-policy-keywords']));

  const variants = variantsOf(s);
  if (variants) {
    const i = variantFor(variants, v);
    const objectVariants = variants.filter((x) => typesOf(x).includes('object'));
    if (
      isObject(v) &&
      objectVariants.length === variants.length &&
      variants.every((x) => x.additionalProperties === false)
    ) {
      for (const [j, other] of variants.entries()) {
        if (j === i) continue;
        const extra = Object.entries(minimalValue(other) as Record<string, unknown>).filter(
          ([k]) => !(k in v) && !(k in (variants[i].properties ?? {})),
        );
        if (extra.length === 0) continue;
        const mixed = { ...v, ...Object.fromEntries(extra) };
        out.push({
          kind: 'mixed-variants',
          path: pathText(segs),
          field: lastName(segs),
          description: `${pathText(segs) || 'body'} mixes the fields of two variants (adds ${extra.map(([k]) => k).join(', ')})`,
          policy: policyNode,
          value: replaceAt(root, segs, mixed),
        });
      }
    }
    s = variants[i];
  }

  const types = typesOf(s);
  const where = pathText(segs) || 'the body';
  if (isRoot && types.length === 1 && types[0] === 'object') {
    out.push({
      kind: 'not-an-object',
      path: '',
      field: '',
      description: 'the body is a JSON array, not an object',
      policy: false,
      value: [v],
    });
    out.push({
      kind: 'not-an-object',
      path: '',
      field: '',
      description: 'the body is a JSON string, not an object',
      policy: false,
      value: 'not-an-object',
    });
  } else {
    const wrong = wrongTypeValue(types);
    if (wrong !== undefined)
      push(
        'wrong-type',
        'type',
        `${where} has the wrong type (${jsonTypeOf(wrong)} instead of ${types.join('|')})`,
        replaceAt(root, segs, wrong),
      );
    if (!types.includes('null') && segs.length > 0)
      push('null-value', 'type', `${where} is null`, replaceAt(root, segs, null));
  }

  if ('const' in s || Array.isArray(s.enum)) {
    const kw = 'const' in s ? 'const' : 'enum';
    const bad = typeof v === 'string' || types.includes('string') ? 'zz-not-allowed' : 987654;
    push(
      'bad-enum',
      kw,
      `${where} is '${bad}', not one of ${JSON.stringify(s.enum ?? [s.const])}`,
      replaceAt(root, segs, bad),
    );
  }

  if (typeof v === 'string') {
    if ((s.minLength ?? 0) > 0)
      push(
        'too-short',
        'minLength',
        `${where} is shorter than ${s.minLength} characters`,
        replaceAt(root, segs, 'a'.repeat(s.minLength - 1)),
      );
    if (typeof s.maxLength === 'number' && s.maxLength < 100_000)
      push(
        'too-long',
        'maxLength',
        `${where} is longer than ${s.maxLength} characters`,
        replaceAt(root, segs, 'a'.repeat(s.maxLength + 1)),
      );
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern, 'u');
      const bad = ['', '!', ' ', 'zz'].find((c) => !re.test(c));
      if (bad !== undefined)
        push(
          'pattern-mismatch',
          'pattern',
          `${where} ('${bad}') does not match ${s.pattern}`,
          replaceAt(root, segs, bad),
        );
    }
    if (s.format === 'date-time' || s.format === 'date')
      push('bad-format', 'format', `${where} is not a ${s.format}`, replaceAt(root, segs, 'yesterday at noon'));
    if (s.format === 'email')
      push('bad-format', 'format', `${where} is not an email address`, replaceAt(root, segs, 'not-an-email'));
    if (s.format === 'uri' || s.format === 'url')
      push('bad-format', 'format', `${where} is not a URI`, replaceAt(root, segs, 'not a uri'));
  }

  if (typeof v === 'number') {
    if (typeof s.minimum === 'number')
      push(
        'below-minimum',
        'minimum',
        `${where} is below its minimum ${s.minimum}`,
        replaceAt(root, segs, s.minimum - 1),
      );
    if (typeof s.exclusiveMinimum === 'number')
      push(
        'below-minimum',
        'exclusiveMinimum',
        `${where} equals its exclusive minimum ${s.exclusiveMinimum}`,
        replaceAt(root, segs, s.exclusiveMinimum),
      );
    if (typeof s.maximum === 'number')
      push(
        'above-maximum',
        'maximum',
        `${where} is above its maximum ${s.maximum}`,
        replaceAt(root, segs, s.maximum + 1),
      );
    if (typeof s.exclusiveMaximum === 'number')
      push(
        'above-maximum',
        'exclusiveMaximum',
        `${where} equals its exclusive maximum ${s.exclusiveMaximum}`,
        replaceAt(root, segs, s.exclusiveMaximum),
      );
    if (types.includes('integer') && !types.includes('number'))
      push('not-integer', 'type', `${where} is not an integer`, replaceAt(root, segs, Math.trunc(v) + 0.5));
  }

  if (Array.isArray(v)) {
    if ((s.minItems ?? 0) > 0)
      push(
        'too-few-items',
        'minItems',
        `${where} has fewer than ${s.minItems} items`,
        replaceAt(root, segs, v.slice(0, s.minItems - 1)),
      );
    if (typeof s.maxItems === 'number' && s.maxItems < 10_000) {
      const filler = v.length ? v[0] : minimalValue(s.items ?? {});
      push(
        'too-many-items',
        'maxItems',
        `${where} has more than ${s.maxItems} items`,
        replaceAt(
          root,
          segs,
          Array.from({ length: s.maxItems + 1 }, (_, i) => v[i] ?? filler),
        ),
      );
    }
    if (s.items) v.slice(0, 2).forEach((item, i) => visit(s.items, root, item, [...segs, i], policyNode, out, false));
  }

  if (isObject(v) && types.includes('object')) {
    for (const r of s.required ?? []) {
      if (r in v) {
        out.push({
          kind: 'missing-required',
          path: pathText([...segs, r]),
          field: r,
          description: `${pathText([...segs, r])} (required) is missing`,
          policy: isPolicy(s, 'required', inherited),
          value: deleteAt(root, segs, r),
        });
      }
    }
    if (s.additionalProperties === false) {
      const name = 'unexpectedField';
      out.push({
        kind: 'unknown-property',
        path: pathText([...segs, name]),
        field: name,
        description: `${where} has an unknown property '${name}'`,
        policy: isPolicy(s, 'additionalProperties', inherited),
        value: replaceAt(root, segs, { ...v, [name]: 'x' }),
      });
    }
    for (const [k, sub] of Object.entries<JsonSchema>(s.properties ?? {})) {
      if (k in v) visit(sub, root, v[k], [...segs, k], policyNode, out, false);
    }
  }
}

export interface InvalidOptions extends ArbitraryOptions {
  /** Keep policy-level mutations (default false: only specification rules are broken). */
  includePolicy?: boolean;
  /** Only these kinds. */
  kinds?: MutationKind[];
  /** Extra guard, e.g. "the contract validator agrees this value is invalid". */
  accept?: (m: Mutation) => boolean;
}

/** Invalid values: a valid value (which shrinks) with one of its mutations picked by an index (which shrinks to 0). */
export function invalidArbitrary(schema: JsonSchema, opts: InvalidOptions = {}): fc.Arbitrary<Mutation> {
  return fc
    .tuple(arbitraryFor(schema, opts), fc.nat())
    .map(([valid, i]) => {
      const ms = mutationsOf(schema, valid).filter(
        (m) =>
          (opts.includePolicy || !m.policy) &&
          (!opts.kinds || opts.kinds.includes(m.kind)) &&
          (!opts.accept || opts.accept(m)),
      );
      return ms.length ? ms[i % ms.length] : null;
    })
    .filter((m): m is Mutation => m !== null);
}
