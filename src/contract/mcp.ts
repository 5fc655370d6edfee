// MCP tool contracts: every contracts/mcp/{keyed,anon}/<tool>.json ({ name, title, description,
// annotations, inputSchema, outputSchema? }) present. A tool may instead name its output by `x-outputSchemaRef`
// ("jobs.openapi.yaml#/components/schemas/Job"), validated with the OpenAPI component schema.
// Schemas compile on first use, once.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAjv, type Ajv, type ValidateFunction } from './ajv.js';
import type { McpServerName, McpToolContract } from './index.js';
import { MAX_MESSAGES, overBudget } from './budget.js';
import { formatErrorsBounded } from './messages.js';

const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export const MCP_SERVERS: readonly McpServerName[] = ['keyed', 'anon'];

export interface McpToolSet {
  tools: Record<McpServerName, Record<string, McpToolContract>>;
  checkInput(server: McpServerName, tool: string, args: unknown): string[];
  checkOutput(server: McpServerName, tool: string, structured: unknown): string[];
  precompile(): void;
}

/** Resolves an `x-outputSchemaRef` to a compiled validator, or undefined when it names nothing. */
export type RefResolver = (ref: string) => ValidateFunction | undefined;

// Tool schemas may come from other generators (e.g. draft-07 from zod), so they get a lenient compiler:
// a `$schema` naming another draft is dropped and unknown keywords are ignored rather than fatal.
function lenient(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

export function loadMcpTools(dir: string, resolveRef: RefResolver): McpToolSet {
  let ajv: Ajv | undefined;
  const compile = (schema: Record<string, unknown>) => (ajv ??= createAjv({ strict: false })).compile(lenient(schema));
  const tools: Record<McpServerName, Record<string, McpToolContract>> = { keyed: {}, anon: {} };
  const cache = new Map<string, ValidateFunction | null>();

  for (const server of MCP_SERVERS) {
    const folder = join(dir, server);
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.json')).sort()) {
      const where = `contracts/mcp/${server}/${file}`;
      let def: McpToolContract & Record<string, unknown>;
      try {
        def = JSON.parse(readFileSync(join(folder, file), 'utf8'));
      } catch (e) {
        throw new Error(`${where} is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof def?.name !== 'string' || typeof def.description !== 'string' || !def.inputSchema || typeof def.inputSchema !== 'object') {
        throw new Error(`${where} must be { name, description, inputSchema, outputSchema? }`);
      }
      const hints = def.annotations as unknown as Record<string, unknown> | undefined;
      if (typeof def.title !== 'string' || !hints || ANNOTATION_HINTS.some((h) => typeof hints[h] !== 'boolean')) {
        throw new Error(`${where} must give a title and annotations with ${ANNOTATION_HINTS.join(', ')} (booleans)`);
      }
      if (`${def.name}.json` !== file) throw new Error(`${where} declares tool '${def.name}'; the file must be named ${def.name}.json`);
      tools[server][def.name] = Object.freeze(def);
    }
  }

  const validator = (server: McpServerName, tool: string, which: 'input' | 'output'): ValidateFunction | null | undefined => {
    const def = tools[server]?.[tool] as (McpToolContract & Record<string, unknown>) | undefined;
    if (!def) return undefined;
    const key = `${server}/${tool}/${which}`;
    if (cache.has(key)) return cache.get(key);
    let v: ValidateFunction | null = null;
    try {
      if (which === 'input') v = compile(def.inputSchema);
      else if (def.outputSchema) v = compile(def.outputSchema);
      else if (typeof def['x-outputSchemaRef'] === 'string') {
        v = resolveRef(def['x-outputSchemaRef']) ?? null;
        if (!v) throw new Error(`x-outputSchemaRef ${def['x-outputSchemaRef']} names no component schema`);
      }
    } catch (e) {
      throw new Error(`contracts/mcp/${server}/${tool}.json: ${which} schema does not compile: ${(e as Error).message}`);
    }
    cache.set(key, v);
    return v;
  };

  const run = (server: McpServerName, tool: string, which: 'input' | 'output', value: unknown, root: string): string[] => {
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
    checkInput: (server, tool, args) => run(server, tool, 'input', args ?? {}, ''),
    checkOutput: (server, tool, structured) => run(server, tool, 'output', structured, 'structuredContent'),
    precompile() {
      for (const server of MCP_SERVERS) {
        for (const tool of Object.keys(tools[server])) {
          validator(server, tool, 'input');
          validator(server, tool, 'output');
        }
      }
    },
  };
}
