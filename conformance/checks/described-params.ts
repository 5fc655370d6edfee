// JOB-VER-2, read as strongly as its sentence allows: the document served at /api/openapi.json is a
// description of this API, so where it declares a query parameter of a documented operation, the values the
// documents allow for that parameter (its listed values, its bounds and its default) are values the declared
// schema accepts, and its `type` is a JSON Schema type. A description may leave a parameter, a schema or an
// operation out, name its path relative to its server URL, and spell path parameters as it likes: only what it
// does declare is compared, so a conformant description never fails.

import { Ajv } from 'ajv';
import { specView } from '../../src/contract/index.js';
import type { HarnessContract } from '../contract.js';
import type { SchemaNode } from '../json.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const template = (p: string) => p.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '');

/** A local `$ref` (`#/…`) resolved in the served document, a few levels deep; anything else is left as it is. */
function resolve(doc: SchemaNode, node: SchemaNode, depth = 0): SchemaNode {
  if (depth > 8 || !node || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((x) => resolve(doc, x, depth + 1));
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    const target = (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce<SchemaNode>(
        (at: SchemaNode, k: string) =>
          at && typeof at === 'object' ? at[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined,
        doc,
      );
    return target === undefined ? node : resolve(doc, target, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(doc, v, depth + 1)]));
}

/** Every `type` in a schema that is no JSON Schema type. */
function badTypes(s: SchemaNode, out: string[] = []): string[] {
  if (!s || typeof s !== 'object') return out;
  if (Array.isArray(s)) {
    for (const x of s) badTypes(x, out);
    return out;
  }
  if ('type' in s) {
    for (const t of Array.isArray(s.type) ? s.type : [s.type])
      if (typeof t !== 'string' || !JSON_TYPES.has(t)) out.push(JSON.stringify(t));
  }
  for (const [k, v] of Object.entries(s)) if (k !== 'enum' && k !== 'default' && k !== 'example') badTypes(v, out);
  return out;
}

/** OpenAPI 3.0's boolean exclusiveMinimum / exclusiveMaximum in the JSON Schema form ajv reads. */
function jsonSchemaOf(s: SchemaNode): SchemaNode {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return s;
  const out: SchemaNode = {};
  for (const [k, v] of Object.entries(s)) {
    if ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && typeof v === 'boolean') {
      const bound = k === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (v && typeof s[bound] === 'number') out[k] = s[bound];
      continue;
    }
    if (k === 'nullable' || k === 'example' || k.startsWith('x-')) continue;
    out[k] = typeof v === 'object' && v !== null ? (Array.isArray(v) ? v : jsonSchemaOf(v)) : v;
  }
  if (out.exclusiveMinimum !== undefined && s.exclusiveMinimum === true) delete out.minimum;
  if (out.exclusiveMaximum !== undefined && s.exclusiveMaximum === true) delete out.maximum;
  return out;
}

/** The values the documents allow for a parameter (its spec view): its listed values, its bounds and its default. */
function documentedValues(schema: SchemaNode): unknown[] {
  const out: unknown[] = [];
  if (Array.isArray(schema?.enum)) out.push(...schema.enum);
  for (const k of ['minimum', 'maximum', 'default']) if (schema?.[k] !== undefined) out.push(schema[k]);
  return out;
}

/** Problems of a served description against the documented operations' query parameters (empty when none). */
export function describedParameterProblems(doc: SchemaNode, contract: HarnessContract, site: string): string[] {
  const problems: string[] = [];
  let prefix = '';
  try {
    const server = doc?.servers?.[0]?.url;
    if (typeof server === 'string') prefix = new URL(server, site).pathname.replace(/\/+$/, '');
  } catch {
    /* a server URL that is no URL: paths are read as written */
  }
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  for (const [p, rawItem] of Object.entries<SchemaNode>(doc?.paths ?? {})) {
    const item = resolve(doc, rawItem);
    if (!item || typeof item !== 'object') continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!op || typeof op !== 'object') continue;
      const full = template(`${prefix}${p}`);
      const documented = contract.operations.find(
        (o) => o.method === m.toUpperCase() && (template(o.path) === full || template(o.path) === template(p)),
      );
      if (!documented) continue;
      const declared = [
        ...(Array.isArray(item.parameters) ? item.parameters : []),
        ...(Array.isArray(op.parameters) ? op.parameters : []),
      ]
        .map((x: SchemaNode) => resolve(doc, x))
        .filter(
          (x: SchemaNode) =>
            x && x.in === 'query' && typeof x.name === 'string' && x.schema && typeof x.schema === 'object',
        );
      for (const q of documented.query) {
        const d = declared.find((x: SchemaNode) => x.name === q.name);
        const values = documentedValues(specView(q.schema as SchemaNode)); // what the documents state, not policy
        if (!d || !values.length) continue;
        const where = `${m.toUpperCase()} ${documented.path} parameter \`${q.name}\``;
        const bad = badTypes(d.schema);
        if (bad.length) {
          problems.push(`${where}: the description declares type ${bad.join(', ')}, which is no JSON Schema type`);
          continue;
        }
        let validate: ReturnType<Ajv['compile']>;
        try {
          validate = ajv.compile(jsonSchemaOf(d.schema));
        } catch {
          continue; // a schema this reader cannot compile is not judged
        }
        const refused = values.filter((v) => !validate(v) && !validate(String(v)));
        if (refused.length)
          problems.push(
            `${where}: the documents allow ${refused.map((v) => JSON.stringify(v)).join(', ')}, which the description's schema ${JSON.stringify(d.schema).slice(0, 200)} refuses`,
          );
      }
    }
  }
  return problems;
}
