// The MCP tool contracts, contracts/mcp/<server>/<tool>.json as the contract loader loaded them: what
// tools/list advertises (the contract's own inputSchema, untouched; the outputSchema, or the REST schema
// it references, widened to admit the tool error shape), argument checks through the loader that name
// the offending argument, and output checks for the self-check mode. The files are the single source.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAjv, type ValidateFunction } from '../contract/ajv.js';
import type { Contracts, McpServerName, McpToolAnnotations } from '../contract/index.js';
import { invalid } from '../errors/errors.js';

const MCP_DIR = fileURLToPath(new URL('../../contracts/mcp/', import.meta.url));

type JsonSchema = Record<string, unknown>;

/** A tool as advertised by tools/list. */
export interface AdvertisedTool {
  name: string;
  title: string;
  description: string;
  annotations: McpToolAnnotations;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
}

interface CompiledTool {
  advertised: AdvertisedTool;
  output: ValidateFunction | null;
}

type McpToolDoc = Contracts['mcpTools']['keyed'][string] & { 'x-outputSchemaRef'?: string };

export interface ToolCatalog {
  /** Tools of a server in name order, as tools/list shows them. */
  list(server: McpServerName): AdvertisedTool[];
  has(server: McpServerName, name: string): boolean;
  /** Checks arguments against the inputSchema (through the contract loader); throws invalid_request naming the argument. */
  checkInput(server: McpServerName, name: string, args: unknown): Record<string, unknown>;
  /** Problems of a structuredContent value against the advertised outputSchema (empty when it conforms). */
  checkOutput(server: McpServerName, name: string, value: unknown): string[];
}

/** structuredContent of every failed tool call; contracts/mcp/tool-error.json. */
export const TOOL_ERROR_SCHEMA: JsonSchema = JSON.parse(readFileSync(`${MCP_DIR}tool-error.json`, 'utf8'));

/** Resolves `x-outputSchemaRef: "jobs.openapi.yaml#/components/schemas/Name"` against the loaded OpenAPI document. */
function resolveRef(contracts: Contracts, ref: unknown): JsonSchema | null {
  if (typeof ref !== 'string') return null;
  const m = /^(screening|jobs)\.openapi\.yaml#\/components\/schemas\/(\w+)$/.exec(ref);
  if (!m) throw new Error(`unsupported x-outputSchemaRef '${ref}'`);
  const schema = contracts.dereferenced[m[1] as 'jobs' | 'screening']?.components?.schemas?.[m[2]];
  return schema ? (withoutAnnotations(schema) as JsonSchema) : null;
}

/** The argument a loader message is about: "limit must be …", "id is required", "unknown property 'foo'". */
export function argumentOf(problem: string): string {
  const unknown = /unknown property '([^']+)'/.exec(problem);
  if (unknown) return unknown[1];
  return /^([\w.[\]-]+?)(?::| is | must | matches | has )/.exec(problem)?.[1] ?? 'arguments';
}

const OPENAPI_ONLY = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs']);

/** OpenAPI-only keywords (x-policy, x-decision, examples, discriminator) mean nothing to an MCP client. */
function withoutAnnotations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutAnnotations);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('x-') && !OPENAPI_ONLY.has(k)).map(([k, x]) => [k, withoutAnnotations(x)]));
}

function compile(contracts: Contracts): Map<string, CompiledTool> {
  const ajv = createAjv({ strict: false });
  const compiled = new Map<string, CompiledTool>();
  for (const server of ['keyed', 'anon'] as const) {
    const docs = contracts.mcpTools[server] as Record<string, McpToolDoc>;
    for (const name of Object.keys(docs).sort()) {
      const doc = docs[name];
      const own = (doc.outputSchema as JsonSchema | undefined) ?? resolveRef(contracts, doc['x-outputSchemaRef']);
      const outputSchema = own ? { type: 'object' as const, anyOf: [{ type: 'object', ...own }, TOOL_ERROR_SCHEMA] } : undefined;
      const advertised: AdvertisedTool = {
        name: doc.name,
        title: doc.title,
        description: doc.description,
        annotations: { ...doc.annotations },
        inputSchema: doc.inputSchema as AdvertisedTool['inputSchema'],
        ...(outputSchema ? { outputSchema } : {}),
      };
      compiled.set(`${server}/${name}`, { advertised, output: outputSchema ? ajv.compile(outputSchema) : null });
    }
  }
  return compiled;
}

const cache = new WeakMap<Contracts, ToolCatalog>();

export function toolCatalog(contracts: Contracts): ToolCatalog {
  const hit = cache.get(contracts);
  if (hit) return hit;
  const tools = compile(contracts);
  const get = (server: McpServerName, name: string) => tools.get(`${server}/${name}`);
  const catalog: ToolCatalog = {
    list: (server) => [...tools.entries()].filter(([k]) => k.startsWith(`${server}/`)).map(([, t]) => t.advertised),
    has: (server, name) => tools.has(`${server}/${name}`),
    checkInput(server, name, args) {
      const problems = contracts.checkToolInput(server, name, args ?? {});
      if (problems.length > 0) {
        const first = argumentOf(problems[0]);
        throw invalid(`invalid argument${problems.length > 1 ? 's' : ''}: ${problems.join('; ')}`, first);
      }
      return { ...((args ?? {}) as Record<string, unknown>) };
    },
    checkOutput(server, name, value) {
      const t = get(server, name);
      if (!t?.output || t.output(value)) return [];
      return (t.output.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    },
  };
  cache.set(contracts, catalog);
  return catalog;
}
