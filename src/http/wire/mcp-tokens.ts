import { z } from 'zod';
import { MCP_SCOPES, type IMcpToken } from '../../core/entities/mcp-token.ts';
import { rowToWire } from './records.ts';

/** `POST /programs/:id/mcp-tokens`: `read` unless asked; a label for people. */
export const mcpTokenIssueSchema = z.strictObject({
  scope: z.enum(MCP_SCOPES).default('read'),
  name: z.string().trim().min(1).max(100).nullable().optional(),
});

/** A token row as the admin API shows it (the hash never leaves core). */
export const mcpTokenRow = z.strictObject({
  id: z.number().int(),
  program: z.number().int(),
  scope: z.enum(MCP_SCOPES),
  name: z.string().nullable(),
  prefix: z.string(),
  created_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
});
export type McpTokenRowWire = z.infer<typeof mcpTokenRow>;

export const issuedMcpTokenBody = z.strictObject({
  mcp_token: mcpTokenRow,
  token: z.string().meta({ description: 'The token: shown this once, stored only as its hash' }),
  note: z.string(),
});
export const mcpTokenBody = z.strictObject({ mcp_token: mcpTokenRow });
export const mcpTokenListBody = z.strictObject({ mcp_tokens: z.array(mcpTokenRow) });

export const mcpTokenToWire = (t: IMcpToken): McpTokenRowWire => rowToWire(t);
