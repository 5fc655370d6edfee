// Serves one MCP HTTP request statelessly: a fresh transport for a fresh server, JSON responses (no
// SSE stream is ever left open), closed once the answer is ready. Several sandbox instances can serve
// the same clients because nothing survives the request. The gate answers what 2025-06-18 requires
// and the SDK does not (batches, malformed tools/call params) before the SDK sees the message.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { limits } from '../domain/plans.js';
import { gate } from './gate.js';

export async function serveMcp(req: Request, server: Server, authInfo?: AuthInfo): Promise<Response> {
  const gated = await gate(req, limits.policy.bodyMaxBytes);
  if (gated.answer) return gated.answer;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: limits.policy.bodyMaxBytes,
  });
  await server.connect(transport);
  try {
    const options = {
      ...(authInfo ? { authInfo } : {}),
      ...(gated.parsedBody !== undefined ? { parsedBody: gated.parsedBody } : {}),
    };
    return await transport.handleRequest(gated.req, options);
  } finally {
    await server.close();
  }
}
