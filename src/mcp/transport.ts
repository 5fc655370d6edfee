// Serves one MCP HTTP request statelessly: a fresh transport for a fresh server, JSON responses (no
// SSE stream is ever left open), closed once the answer is ready. Several sandbox instances can serve
// the same clients because nothing survives the request.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { limits } from '../domain/plans.js';

export async function serveMcp(req: Request, server: Server, authInfo?: AuthInfo): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: limits.policy.bodyMaxBytes,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req, authInfo ? { authInfo } : undefined);
  } finally {
    await server.close();
  }
}
