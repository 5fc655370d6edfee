// What a tool handler is: a name, an optional extra scope, and a function from checked arguments to a
// JSON object. Handlers only translate between MCP arguments and the domain; they hold no state.

import type { McpServerName } from '../contract/index.js';
import type { Core } from '../domain/core.js';
import type { Principal, Scope } from '../domain/tenants.js';

/** The caller of one MCP request (a fresh server is built per request, so this is per request too). */
export interface ToolCall {
  core: Core;
  server: McpServerName;
  /** The key owner on the keyed server; null on the anonymous server. */
  principal: Principal | null;
  clientIp: string;
}

/**
 * `A` is the tool's generated argument type (src/contract/mcp.gen.ts): the server hands `run` only
 * arguments that passed the tool's inputSchema.
 */
export interface ToolHandler<A extends object = Record<string, unknown>> {
  name: string;
  /** A scope the key needs besides `mcp` (employer tools, apply). */
  scope?: Scope;
  run(args: A, call: ToolCall): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export function principalOf(call: ToolCall): Principal {
  if (!call.principal) throw new Error('this tool needs an authenticated caller');
  return call.principal;
}
