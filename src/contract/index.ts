// The one contract loader used by everything. It parses and dereferences contracts/*.openapi.yaml once
// (swagger-parser), compiles every schema once (ajv, strict, with formats),
// loads the MCP tool schemas from contracts/mcp/, and exposes validators. loadContracts() is memoized.

import { createAjv } from './ajv.js';
import { API_NAMES, CONTRACTS_DIR, loadDocument, schemaBase } from './load.js';
import { loadMcpTools, parseSchemaRef, type AdvertisedTool } from './mcp.js';
import { formatErrors } from './messages.js';
import { compileOperation } from './operation.js';
import { Router } from './router.js';
import type { Doc } from './doc.js';

export { isPolicy, specView } from './policy.js';
export type { AdvertisedTool } from './mcp.js';

export type ApiName = 'screening' | 'jobs';
export type McpServerName = 'keyed' | 'anon';

/** MCP tool annotations (2025-06-18): hints a client uses to decide what needs the user's consent. */
export interface McpToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpToolContract {
  name: string;
  /** Human-readable name agent directories and clients show. */
  title: string;
  description: string;
  annotations: McpToolAnnotations;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface OperationContract {
  api: ApiName;
  operationId: string;
  method: string;
  /** Full OpenAPI path template, e.g. /api/v1/jobs/{id}. */
  path: string;
  /**
   * Parses query parameters: coerces strings to the schema types, applies defaults, and throws a
   * DomainError invalid_request naming the parameter for a bad value or an unknown parameter.
   */
  parseQuery(params: URLSearchParams): Record<string, unknown>;
  /** Validates path parameters the same way. */
  parsePath(params: Record<string, string>): Record<string, unknown>;
  /** Validates a parsed JSON body; throws DomainError invalid_request naming the field. */
  checkBody(body: unknown): void;
  /** Validates a response for a status code; returns human-readable problems (empty when it conforms). */
  checkResponse(status: number, body: unknown, headers?: Headers): string[];
}

export interface Contracts {
  /** Bundled (not dereferenced) documents, as served at /api/openapi.json and /docs. */
  documents: Record<ApiName, Doc>;
  /** Dereferenced documents. */
  dereferenced: Record<ApiName, Doc>;
  operation(operationId: string): OperationContract;
  /** Finds the operation serving a concrete method and path, e.g. GET /api/v1/jobs/abc. */
  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | null;
  /**
   * Validates a value against a named component schema (e.g. 'ScoreResultV1', or 'jobs:ErrorEnvelope' to
   * pick one document where both define the name); returns problems.
   */
  validate(schemaName: string, value: unknown): string[];
  mcpTools: Record<McpServerName, Record<string, McpToolContract>>;
  /** Validates MCP tool arguments against the tool's inputSchema; returns problems naming the argument. */
  checkToolInput(server: McpServerName, tool: string, args: unknown): string[];
  /** Validates a tool's structuredContent against its outputSchema (no problems when it declares none). */
  checkToolOutput(server: McpServerName, tool: string, structured: unknown): string[];
  /** Each server's tools as tools/list advertises them (inputs composed, outputs admitting the tool error). */
  mcpAdvertised: Record<McpServerName, readonly AdvertisedTool[]>;
  /** structuredContent of every failed tool call (contracts/mcp/tool-error.json). */
  toolErrorSchema: Record<string, unknown>;
  /** Validates a tool result against the advertised outputSchema: the tool's output or a tool error. */
  checkToolResult(server: McpServerName, tool: string, structured: unknown): string[];
  /** Every REST operation and webhook of both documents. */
  operations: readonly OperationContract[];
  /**
   * Compiles every validator now instead of on first use (validators are otherwise compiled lazily, once);
   * throws when a schema does not compile. Used by the contract tests and before benchmarks.
   */
  precompile(): void;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

async function build(): Promise<Contracts> {
  const ajv = createAjv();
  const router = new Router();
  const ops = new Map<string, OperationContract>();
  const schemas = new Map<string, string>();
  const precompilers: (() => void)[] = [];
  const documents = {} as Record<ApiName, Doc>;
  const dereferenced = {} as Record<ApiName, Doc>;

  for (const api of API_NAMES) {
    const doc = await loadDocument(api);
    documents[api] = doc.bundled;
    dereferenced[api] = doc.dereferenced;
    const compiled = doc.compileView;
    const base = schemaBase(api);
    ajv.addSchema({ $id: base, $defs: compiled.components?.schemas ?? {} });
    const add = (path: string, item: Doc, routed: boolean) => {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        if (ops.has(op.operationId)) throw new Error(`operationId ${op.operationId} is defined twice`);
        const { contract, precompile } = compileOperation(ajv, api, method, path, item, op);
        precompilers.push(precompile);
        ops.set(op.operationId, contract);
        if (routed) router.add(contract);
      }
    };
    for (const [path, item] of Object.entries<Doc>(compiled.paths ?? {})) add(path, item, true);
    // Webhooks are operations the service performs, not routes it serves: compiled but never matched.
    for (const [name, item] of Object.entries<Doc>(compiled.webhooks ?? {})) add(name, item, false);
    // Component schemas compile on first use (operations already compiled the ones they reference).
    for (const name of Object.keys(compiled.components?.schemas ?? {})) {
      const ref = `${base}#/$defs/${name}`;
      schemas.set(`${api}:${name}`, ref);
      if (!schemas.has(name)) schemas.set(name, ref);
    }
  }

  const mcp = loadMcpTools(`${CONTRACTS_DIR}mcp`, {
    schema(ref) {
      const r = parseSchemaRef(ref);
      return r ? dereferenced[r.api]?.components?.schemas?.[r.name] : undefined;
    },
    validator(ref) {
      const r = parseSchemaRef(ref);
      return r ? ajv.getSchema(`${schemaBase(r.api)}#/$defs/${r.name}`) : undefined;
    },
  });
  const operations = Object.freeze([...ops.values()]);

  return {
    documents,
    dereferenced,
    operations,
    operation(operationId) {
      const op = ops.get(operationId);
      if (!op) throw new Error(`unknown operationId '${operationId}'; known: ${[...ops.keys()].join(', ')}`);
      return op;
    },
    match: (method, path) => router.match(method, path),
    validate(schemaName, value) {
      const ref = schemas.get(schemaName);
      const v = ref ? ajv.getSchema(ref) : undefined;
      if (!v)
        throw new Error(
          `unknown schema '${schemaName}'; known: ${[...schemas.keys()].filter((k) => !k.includes(':')).join(', ')}`,
        );
      return v(value) ? [] : formatErrors(v.errors, '', 'value');
    },
    precompile() {
      for (const p of precompilers) p();
      for (const ref of new Set(schemas.values())) if (!ajv.getSchema(ref)) throw new Error(`${ref} did not compile`);
      mcp.precompile();
    },
    mcpTools: mcp.tools,
    checkToolInput: mcp.checkInput,
    checkToolOutput: mcp.checkOutput,
    mcpAdvertised: mcp.advertised,
    toolErrorSchema: mcp.toolErrorSchema,
    checkToolResult: mcp.checkResult,
  };
}

let loaded: Promise<Contracts> | undefined;

/** Loads and compiles every contract once per process. */
export function loadContracts(): Promise<Contracts> {
  loaded ??= build().catch((e) => {
    loaded = undefined;
    throw e;
  });
  return loaded;
}
