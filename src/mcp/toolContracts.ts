// The MCP side of the tool contracts the contract loader holds (src/contract/mcp.ts is the one loader):
// what tools/list shows, and argument checks that become an invalid_request tool error naming the
// offending argument (D-34, POL-MCP-12).

import type { AdvertisedTool, Contracts, McpServerName } from '../contract/index.js';
import { invalid } from '../errors/errors.js';

export type { AdvertisedTool };

export interface ToolCatalog {
  /** Tools of a server in name order, as tools/list shows them. */
  list(server: McpServerName): AdvertisedTool[];
  has(server: McpServerName, name: string): boolean;
  /** Checks arguments against the inputSchema; throws invalid_request naming the argument. */
  checkInput(server: McpServerName, name: string, args: unknown): Record<string, unknown>;
  /** Problems of a structuredContent value against the advertised outputSchema (empty when it conforms). */
  checkOutput(server: McpServerName, name: string, value: unknown): string[];
}

/** The argument a loader message is about: "limit must be …", "id is required", "unknown property 'foo'". */
export function argumentOf(problem: string): string {
  const unknown = /unknown property '([^']+)'/.exec(problem);
  if (unknown) return unknown[1];
  return /^([\w.[\]-]+?)(?::| is | must | matches | has )/.exec(problem)?.[1] ?? 'arguments';
}

export function toolCatalog(contracts: Contracts): ToolCatalog {
  return {
    list: (server) => [...contracts.mcpAdvertised[server]],
    has: (server, name) => Object.hasOwn(contracts.mcpTools[server], name),
    checkInput(server, name, args) {
      const problems = contracts.checkToolInput(server, name, args ?? {});
      if (problems.length > 0) {
        const first = argumentOf(problems[0]);
        throw invalid(`invalid argument${problems.length > 1 ? 's' : ''}: ${problems.join('; ')}`, first);
      }
      return { ...((args ?? {}) as Record<string, unknown>) };
    },
    checkOutput: (server, name, value) => contracts.checkToolResult(server, name, value),
  };
}
