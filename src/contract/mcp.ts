// MCP tool contracts: every contracts/mcp/{keyed,anon}/<tool>.json ({ name, title, description,
// annotations, inputSchema, outputSchema? }) present, loaded once. A tool may take input properties from an
// OpenAPI component (`x-propertiesFrom` in its inputSchema, so apply_to_job and POST /jobs/{id}/apply share
// one body contract) and may name its output by `x-outputSchemaRef` ("jobs.openapi.yaml#/components/schemas/Job").
// Both are resolved here, once, into the schemas tools/list advertises; the tool error shape
// (contracts/mcp/tool-error.json) is admitted by every advertised outputSchema. Schemas compile on first use.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAjv, type Ajv, type ValidateFunction } from './ajv.js';
import type { McpServerName, McpToolAnnotations, McpToolContract } from './index.js';
import { MAX_MESSAGES, overBudget } from './budget.js';
import { formatErrorsBounded } from './messages.js';

const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export const MCP_SERVERS: readonly McpServerName[] = ['keyed', 'anon'];

type JsonSchema = Record<string, unknown>;

/** A tool as tools/list advertises it. */
export interface AdvertisedTool {
  name: string;
  title: string;
  description: string;
  annotations: McpToolAnnotations;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
}

export interface McpToolSet {
  tools: Record<McpServerName, Record<string, McpToolContract>>;
  /** Each server's tools in name order, as tools/list shows them. */
  advertised: Record<McpServerName, readonly AdvertisedTool[]>;
  toolErrorSchema: JsonSchema;
  checkInput: (server: McpServerName, tool: string, args: unknown) => string[];
  checkOutput: (server: McpServerName, tool: string, structured: unknown) => string[];
  /** Problems of a result against the advertised outputSchema (the tool's own output or a tool error). */
  checkResult: (server: McpServerName, tool: string, structured: unknown) => string[];
  precompile: () => void;
}

/** Where `...openapi.yaml#/components/schemas/Name` references are looked up. */
export interface SchemaSource {
  /** The dereferenced component schema, or undefined when the reference names nothing. */
  schema(ref: string): JsonSchema | undefined;
  /** Its compiled validator (the OpenAPI loader's own), when there is one. */
  validator?(ref: string): ValidateFunction | undefined;
}

const REF = /^(screening|jobs)\.openapi\.yaml#\/components\/schemas\/([\w.-]+)$/;

/** The document and component name of a reference, or null when it is not one this loader supports. */
export function parseSchemaRef(ref: string): { api: 'screening' | 'jobs'; name: string } | null {
  const m = REF.exec(ref);
  return m ? { api: m[1] as 'screening' | 'jobs', name: m[2] } : null;
}

const OPENAPI_ONLY = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs']);

/** OpenAPI-only keywords (x-policy, x-decision, examples, discriminator) mean nothing to an MCP client. */
export function withoutAnnotations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutAnnotations);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !k.startsWith('x-') && !OPENAPI_ONLY.has(k))
      .map(([k, x]) => [k, withoutAnnotations(x)]),
  );
}

// Tool schemas may come from other generators (e.g. draft-07 from zod), so they get a lenient compiler:
// a `$schema` naming another draft is dropped and unknown keywords are ignored rather than fatal.
function lenient(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** An inputSchema with its `x-propertiesFrom` component merged in (its properties and required list). */
function composeInput(input: JsonSchema, source: SchemaSource, where: string): JsonSchema {
  const ref = input['x-propertiesFrom'];
  if (ref === undefined) return input;
  const from = typeof ref === 'string' ? source.schema(ref) : undefined;
  if (!from) throw new Error(`${where}: x-propertiesFrom ${JSON.stringify(ref)} names no component schema`);
  const { 'x-propertiesFrom': _ref, ...own } = input;
  // the properties keep their policy markers (x-policy, x-decision), as the tool's own properties do
  return {
    ...own,
    properties: { ...(own.properties as JsonSchema), ...(from.properties as JsonSchema) },
    required: [...((own.required as string[]) ?? []), ...((from.required as string[]) ?? [])],
  };
}

function readTool(folder: string, file: string, where: string, source: SchemaSource): McpToolContract & JsonSchema {
  let def: McpToolContract & JsonSchema;
  try {
    def = JSON.parse(readFileSync(join(folder, file), 'utf8'));
  } catch (e) {
    throw new Error(`${where} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (
    typeof def?.name !== 'string' ||
    typeof def.description !== 'string' ||
    !def.inputSchema ||
    typeof def.inputSchema !== 'object'
  ) {
    throw new Error(`${where} must be { name, description, inputSchema, outputSchema? }`);
  }
  const hints = def.annotations as unknown as Record<string, unknown> | undefined;
  if (typeof def.title !== 'string' || !hints || ANNOTATION_HINTS.some((h) => typeof hints[h] !== 'boolean')) {
    throw new Error(`${where} must give a title and annotations with ${ANNOTATION_HINTS.join(', ')} (booleans)`);
  }
  if (`${def.name}.json` !== file)
    throw new Error(`${where} declares tool '${def.name}'; the file must be named ${def.name}.json`);
  return Object.freeze({ ...def, inputSchema: composeInput(def.inputSchema, source, where) });
}

function advertise(def: McpToolContract & JsonSchema, source: SchemaSource, toolError: JsonSchema): AdvertisedTool {
  const ref = def['x-outputSchemaRef'];
  const own =
    def.outputSchema ??
    (typeof ref === 'string' ? (withoutAnnotations(source.schema(ref)) as JsonSchema | undefined) : undefined);
  const outputSchema = own ? { type: 'object' as const, anyOf: [{ type: 'object', ...own }, toolError] } : undefined;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    annotations: { ...def.annotations },
    inputSchema: def.inputSchema as AdvertisedTool['inputSchema'],
    ...(outputSchema ? { outputSchema } : {}),
  };
}

export function loadMcpTools(dir: string, source: SchemaSource): McpToolSet {
  let ajv: Ajv | undefined;
  const compile = (schema: JsonSchema) => (ajv ??= createAjv({ strict: false })).compile(lenient(schema));
  const toolErrorSchema: JsonSchema = JSON.parse(readFileSync(join(dir, 'tool-error.json'), 'utf8'));
  const tools: Record<McpServerName, Record<string, McpToolContract & JsonSchema>> = { keyed: {}, anon: {} };
  const advertised: Record<McpServerName, AdvertisedTool[]> = { keyed: [], anon: [] };
  const cache = new Map<string, ValidateFunction | null>();

  for (const server of MCP_SERVERS) {
    const folder = join(dir, server);
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const def = readTool(folder, file, `contracts/mcp/${server}/${file}`, source);
      tools[server][def.name] = def;
      advertised[server].push(advertise(def, source, toolErrorSchema));
    }
    advertised[server].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  const validator = (
    server: McpServerName,
    tool: string,
    which: 'input' | 'output' | 'result',
  ): ValidateFunction | null | undefined => {
    const def = tools[server]?.[tool];
    if (!def) return undefined;
    const key = `${server}/${tool}/${which}`;
    if (cache.has(key)) return cache.get(key);
    let v: ValidateFunction | null = null;
    try {
      if (which === 'input') v = compile(def.inputSchema);
      else if (which === 'result') {
        const out = advertised[server].find((t) => t.name === tool)?.outputSchema;
        v = out ? compile(out) : null;
      } else if (def.outputSchema) v = compile(def.outputSchema);
      else if (typeof def['x-outputSchemaRef'] === 'string') {
        v = source.validator?.(def['x-outputSchemaRef']) ?? null;
        if (!v) throw new Error(`x-outputSchemaRef ${def['x-outputSchemaRef']} names no component schema`);
      }
    } catch (e) {
      throw new Error(
        `contracts/mcp/${server}/${tool}.json: ${which} schema does not compile: ${(e as Error).message}`,
        { cause: e },
      );
    }
    cache.set(key, v);
    return v;
  };

  const run = (
    server: McpServerName,
    tool: string,
    which: 'input' | 'output' | 'result',
    value: unknown,
    root: string,
  ): string[] => {
    const v = validator(server, tool, which);
    if (v === undefined) return [`unknown tool '${tool}' on the ${server} MCP server`];
    if (which === 'input') {
      const over = overBudget(value, 'arguments');
      if (over) return [over];
    }
    if (!v || v(value)) return [];
    const { messages, omitted } = formatErrorsBounded(v.errors, root, root || 'arguments', MAX_MESSAGES);
    return omitted > 0 ? [...messages, `and ${omitted} more problem${omitted === 1 ? '' : 's'}`] : messages;
  };
  return {
    tools,
    advertised,
    toolErrorSchema,
    checkInput: (server, tool, args) => run(server, tool, 'input', args ?? {}, ''),
    checkOutput: (server, tool, structured) => run(server, tool, 'output', structured, 'structuredContent'),
    checkResult: (server, tool, structured) => run(server, tool, 'result', structured, 'structuredContent'),
    precompile() {
      for (const server of MCP_SERVERS) {
        for (const tool of Object.keys(tools[server]))
          for (const which of ['input', 'output', 'result'] as const) validator(server, tool, which);
      }
    },
  };
}
