// The one contract loader used by everything. (Interface skeleton; implemented by the contracts work.)
// It parses and dereferences contracts/*.openapi.yaml once (swagger-parser), compiles every schema
// once (ajv + ajv-formats), loads the MCP tool schemas from contracts/mcp/, and exposes validators.

export type ApiName = 'screening' | 'jobs';
export type McpServerName = 'keyed' | 'anon';

export interface McpToolContract {
  name: string;
  description: string;
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
  documents: Record<ApiName, Record<string, any>>;
  /** Dereferenced documents. */
  dereferenced: Record<ApiName, Record<string, any>>;
  operation(operationId: string): OperationContract;
  /** Finds the operation serving a concrete method and path, e.g. GET /api/v1/jobs/abc. */
  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | null;
  /** Validates a value against a named component schema (e.g. 'ScoreResultV1'); returns problems. */
  validate(schemaName: string, value: unknown): string[];
  mcpTools: Record<McpServerName, Record<string, McpToolContract>>;
}

// Permissive placeholder until the real loader lands: validates nothing.
export async function loadContracts(): Promise<Contracts> {
  const op = (operationId: string): OperationContract => ({
    api: 'jobs',
    operationId,
    method: 'GET',
    path: '',
    parseQuery: (p) => Object.fromEntries(p),
    parsePath: (p) => ({ ...p }),
    checkBody: () => {},
    checkResponse: () => [],
  });
  return {
    documents: { screening: {}, jobs: {} },
    dereferenced: { screening: {}, jobs: {} },
    operation: op,
    match: () => null,
    validate: () => [],
    mcpTools: { keyed: {}, anon: {} },
  };
}
