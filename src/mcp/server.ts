// Builds one low-level MCP Server for one request: tools/list advertises the contract schemas as they
// are, tools/call checks arguments against them, runs the handler and maps any domain error to a tool
// error result. Unknown tools are a JSON-RPC error -32602 (the 2025-06-18 text's own example).

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerName } from '../contract/index.js';
import { DomainError } from '../errors/errors.js';
import { toToolError, toolResult } from './errors.js';
import { PROTOCOL_VERSION } from './instructions.js';
import type { ToolCall, ToolHandler } from './tool.js';
import type { AdvertisedTool } from './toolContracts.js';
import { toolCatalog } from './toolContracts.js';

export interface ServerSpec {
  server: McpServerName;
  info: { name: string; title?: string; version: string };
  instructions: string;
  handlers: Readonly<Record<string, ToolHandler>>;
  /** The tools tools/list shows (normally the server's contracts). */
  listed(call: ToolCall): AdvertisedTool[];
  /** Runs before every known tool's call: rate limits. Throws a DomainError to refuse the call. */
  beforeCall(call: ToolCall, tool: ToolHandler): void;
}

export function buildServer(spec: ServerSpec, call: ToolCall): Server {
  const catalog = toolCatalog(call.core.contracts);
  const capabilities = { tools: { listChanged: false } };
  const server = new Server(spec.info, { capabilities, instructions: spec.instructions });

  // The SDK echoes whichever revision the client asks for; this server always answers the pinned one,
  // which the version negotiation rules allow (the client then decides whether it can go on).
  server.setRequestHandler(InitializeRequestSchema, () => ({
    protocolVersion: PROTOCOL_VERSION,
    capabilities,
    serverInfo: spec.info,
    instructions: spec.instructions,
  }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: spec.listed(call) }));

  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const { name, arguments: args } = req.params;
    const handler = Object.hasOwn(spec.handlers, name) ? spec.handlers[name] : undefined;
    if (!handler || !catalog.has(spec.server, name)) {
      // McpError's own message already reads "MCP error -32602: …", and clients prefix it once more
      throw Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
    }
    try {
      spec.beforeCall(call, handler);
      if (handler.scope && call.principal) call.core.tenants.requireScope(call.principal, handler.scope);
      const checked = catalog.checkInput(spec.server, name, args ?? {});
      const value = await handler.run(checked, call);
      if (call.core.config.selfCheck) {
        const problems = catalog.checkOutput(spec.server, name, value);
        if (problems.length > 0) {
          throw new DomainError(
            'internal',
            `self-check: ${name} returned a result that breaks its outputSchema: ${problems.join('; ')}`,
          );
        }
      }
      return toolResult(value);
    } catch (err) {
      return toToolError(err);
    }
  });

  return server;
}
