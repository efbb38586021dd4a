import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from './define-tool.ts';
import type { ToolEnv } from './mcp-context.ts';
import { reportingTools } from './tools-reporting.ts';
import { partnerTools } from './tools-partners.ts';
import { recordTools } from './tools-records.ts';
import { commissionTools } from './tools-commissions.ts';
import { previewTools } from './tools-previews.ts';

/** Every tool, in the order they are listed. Write-scope tools are listed to every token and refused to read-only ones. */
export const TOOLS: readonly Tool[] = [
  ...reportingTools,
  ...partnerTools,
  ...recordTools,
  ...commissionTools,
  ...previewTools,
];

const INSTRUCTIONS =
  "Tools of one partner program of a conversion tracking service: results, partners, commissions, sales, webhook events and what-if previews. Money is in minor units of its currency (4900 USD = 49.00 USD), never converted. Every tool answers for the token's program only.";

/** A server for one request (the transport is stateless), bound to the token's program and scope. */
export function createMcpServer(env: ToolEnv, version: string): McpServer {
  const server = new McpServer({ name: 'partner-conversion-tracker', version }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) tool.install(server, env);
  return server;
}
