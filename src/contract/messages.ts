// Turns ajv errors into short messages that name the offending field or parameter, e.g.
// "candidate.kind must be one of resume_ref, structured" or "jobSpec: unknown property 'salary'".

import { DISCRIMINATOR_VALUES, type ErrorObject } from './ajv.js';
import type { Doc, DocNode } from './doc.js';

/** `/candidate/skills/3` -> `candidate.skills[3]`, under an optional root name. */
export function pathOf(instancePath: string, root = ''): string {
  let out = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const typeName = (t: unknown): string =>
  Array.isArray(t) ? t.map(typeName).join(' or ') : (TYPE_NAMES[String(t)] ?? String(t));

/** "an integer from 1 to 500", "a number >= 0", "an integer". */
export function describeNumber(schema: Doc): string {
  const base = typeName(
    Array.isArray(schema.type) ? schema.type.filter((t: string) => t !== 'null') : (schema.type ?? 'number'),
  );
  const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : undefined);
  const hi = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? `< ${schema.exclusiveMaximum}` : undefined);
  if (typeof lo === 'number' && typeof hi === 'number') return `${base} from ${lo} to ${hi}`;
  if (typeof lo === 'number') return `${base} >= ${lo}`;
  if (typeof hi === 'number') return `${base} <= ${hi}`;
  if (lo !== undefined || hi !== undefined) return `${base} ${[lo, hi].filter(Boolean).join(' and ')}`;
  return base;
}

function lengthRule(s: Doc, lo: string, hi: string, unit: string): string {
  const min = s[lo];
  const max = s[hi];
  if (min !== undefined && max !== undefined) return `${min} to ${max} ${unit}`;
  if (min !== undefined) return `at least ${min} ${unit}`;
  return `at most ${max} ${unit}`;
}

const subject = (path: string, fallback: string) => path || fallback;

/**
 * One message per meaningful ajv error; wrapper errors (anyOf/if) are folded into their causes. At most
 * `max` distinct messages are made; `omitted` counts the errors left unformatted. Linear in the errors.
 */
export function formatErrorsBounded(
  errors: readonly ErrorObject[] | null | undefined,
  root = '',
  fallback = 'value',
  max = Infinity,
): { messages: string[]; omitted: number } {
  if (!errors?.length) return { messages: [], omitted: 0 };
  const out = new Set<string>();
  let omitted = 0;
  // ajv reports an anyOf's branch failures immediately before the anyOf itself: fold them into one message.
  const branchOf = new Map<number, number>();
  errors.forEach((e, i) => {
    if (e.keyword !== 'anyOf') return;
    for (let j = i - 1; j >= 0 && !branchOf.has(j); j--) {
      const b = errors[j];
      if (b.instancePath !== e.instancePath && !b.instancePath.startsWith(e.instancePath + '/')) break;
      branchOf.set(j, i);
    }
  });
  const branchesOf = new Map<number, ErrorObject[]>();
  for (const [j, k] of branchOf) {
    const list = branchesOf.get(k);
    if (list) list.push(errors[j]);
    else branchesOf.set(k, [errors[j]]);
  }
  errors.forEach((e, i) => {
    if (branchOf.has(i)) return;
    if (out.size >= max) {
      omitted++;
      return;
    }
    const msg =
      e.keyword === 'anyOf' ? formatAnyOf(e, branchesOf.get(i) ?? [], root, fallback) : formatError(e, root, fallback);
    if (msg) out.add(msg);
  });
  return { messages: [...out], omitted };
}

export function formatErrors(
  errors: readonly ErrorObject[] | null | undefined,
  root = '',
  fallback = 'value',
): string[] {
  return formatErrorsBounded(errors, root, fallback).messages;
}

/** The first `max` messages joined, and how many more problems there were. */
export function summarizeErrors(
  errors: readonly ErrorObject[] | null | undefined,
  root: string,
  fallback: string,
  max: number,
): string {
  const { messages, omitted } = formatErrorsBounded(errors, root, fallback, max);
  return messages.join('; ') + (omitted > 0 ? ` (and ${omitted} more problem${omitted === 1 ? '' : 's'})` : '');
}

function formatAnyOf(e: ErrorObject, branches: ErrorObject[], root: string, fallback: string): string {
  const at = subject(pathOf(e.instancePath, root), fallback);
  const alternatives: string[] = [];
  const nested: string[] = [];
  const prefix = `${at} must be `;
  for (const b of branches) {
    if (b.keyword === 'type' && (b.params as DocNode).type === 'null') {
      alternatives.unshift('null');
      continue;
    }
    const m = formatError(b, root, fallback);
    if (!m) continue;
    if (m.startsWith(prefix)) alternatives.push(m.slice(prefix.length));
    else if (!nested.includes(m)) nested.push(m);
  }
  const head = alternatives.length
    ? `${at} must be ${[...new Set(alternatives)].join(' or ')}`
    : `${at} matches none of the allowed forms`;
  return nested.length ? `${head}; otherwise ${nested.join(', ')}` : head;
}

function formatError(e: ErrorObject, root: string, fallback: string): string | null {
  const path = pathOf(e.instancePath, root);
  const at = subject(path, fallback);
  const s = (e.parentSchema ?? {}) as Doc;
  const p = e.params as Doc;
  const child = (name: string) => pathOf(`${e.instancePath}/${name}`, root);
  switch (e.keyword) {
    case 'required':
      return `${child(p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${path ? `${path}: ` : ''}unknown property '${p.additionalProperty}'`;
    case 'type':
      if (s.minimum !== undefined || s.maximum !== undefined) return `${at} must be ${describeNumber(s)}`;
      return `${at} must be ${typeName(p.type)}`;
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const': {
      const dep = /\/dependentSchemas\/([^/]+)\//.exec(e.schemaPath);
      if (dep)
        return `${pathOf(e.instancePath.replace(/\/[^/]*$/, ''), root) ? pathOf(e.instancePath.replace(/\/[^/]*$/, ''), root) + '.' : ''}${dep[1]} is allowed only when ${at} is ${JSON.stringify(p.allowedValue)}`;
      return `${at} must be ${JSON.stringify(p.allowedValue)}`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at} must be ${describeNumber(s)}`;
    case 'multipleOf':
      return `${at} must be a multiple of ${p.multipleOf}`;
    case 'minLength':
    case 'maxLength':
      return `${at} must be ${lengthRule(s, 'minLength', 'maxLength', 'characters')} long`;
    case 'minItems':
    case 'maxItems':
      return `${at} must have ${lengthRule(s, 'minItems', 'maxItems', 'items')}`;
    case 'minProperties':
    case 'maxProperties':
      return `${at} must have ${lengthRule(s, 'minProperties', 'maxProperties', 'properties')}`;
    case 'uniqueItems':
      return `${at} must not contain duplicates (items ${p.j} and ${p.i} are equal)`;
    case 'format':
      return `${at} must be a valid ${p.format}`;
    case 'pattern':
      return `${at} must match the pattern ${p.pattern}`;
    case 'discriminator': {
      const tag = p.tag as string;
      const listed = s.discriminator?.[DISCRIMINATOR_VALUES] as string[] | undefined;
      const values = listed ?? (s.oneOf ?? []).map((b: DocNode) => b?.properties?.[tag]?.const).filter(Boolean);
      const where = child(tag);
      return p.error === 'tag' && p.tagValue === undefined
        ? `${where} is required (one of ${values.join(', ')})`
        : `${where} must be one of ${values.join(', ')}`;
    }
    case 'not': {
      const req = (e.schema as DocNode)?.required as string[] | undefined;
      if (req?.length === 1) return `${child(req[0])} is not allowed here`;
      return `${at} has a form that is not allowed`;
    }
    case 'oneOf':
      return p.passingSchemas ? `${at} matches more than one allowed form` : `${at} matches none of the allowed forms`;
    case 'if':
    case 'false schema':
      return e.keyword === 'false schema' ? `${at} is not allowed` : null;
    default:
      return `${at} ${e.message ?? 'is invalid'}`;
  }
}
