import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpGrant } from '../core/programs/mcp-tokens.ts';
import type { McpContext, ToolEnv } from './mcp-context.ts';
import { createMcpServer } from './create-mcp-server.ts';

const VERSION = '1.0.0';

/**
 * Answers one Streamable HTTP request of an authenticated token. Stateless: no session id, a
 * server per request, JSON responses (no stream is held open), so any HTTP process answers any
 * request and nothing is kept between them.
 */
export async function handleMcpRequest(
  ctx: McpContext,
  grant: McpGrant,
  request: Request,
  caller: ToolEnv['caller'],
): Promise<Response> {
  const server = createMcpServer({ ctx, grant, caller }, VERSION);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
