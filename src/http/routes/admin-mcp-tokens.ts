import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { issueMcpToken, listMcpTokens, revokeMcpToken } from '../../core/programs/mcp-tokens.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import {
  issuedMcpTokenBody,
  mcpTokenBody,
  mcpTokenIssueSchema,
  mcpTokenListBody,
  mcpTokenToWire,
} from '../wire/mcp-tokens.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/** A program's MCP tokens (docs/mcp.md): issue (shown once), list, revoke. */
export function registerMcpTokenRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/mcp-tokens', async (e) => {
    const input = validate(mcpTokenIssueSchema, await body(e));
    const { row, token } = await issueMcpToken(ctx.deps(), num(e, 'id'), {
      scope: input.scope,
      name: input.name ?? null,
    });
    const out: z.infer<typeof issuedMcpTokenBody> = {
      mcp_token: mcpTokenToWire(row),
      token,
      note: 'Store this token now; it is not shown again.',
    };
    return json(out, 201, { 'cache-control': 'no-store' });
  });
  on('get', '/programs/:id/mcp-tokens', async (e) => ({
    mcp_tokens: (await listMcpTokens(ctx.deps(), num(e, 'id'))).map(mcpTokenToWire),
  }));
  on('post', '/programs/:id/mcp-tokens/:tokenId/revoke', async (e) => ({
    mcp_token: mcpTokenToWire(await revokeMcpToken(ctx.deps(), num(e, 'id'), num(e, 'tokenId'))),
  }));
}

const id = z.number().int().positive();

export const mcpTokenOperations = [
  adminOperation('post', '/programs/:id/mcp-tokens', 'issueMcpToken', 'Issue an MCP token (shown once)', {
    params: { id },
    body: mcpTokenIssueSchema,
    bodyOptional: true,
    description:
      'A token for an AI assistant on `/mcp` or `tracker mcp`, for this program only. `read` (default) answers questions; `write` also approves, releases and rejects commissions and previews payouts. No scope executes a payout.',
    errors: ['not_found'],
    responses: { 201: { description: 'Issued', schema: issuedMcpTokenBody } },
  }),
  adminOperation('get', '/programs/:id/mcp-tokens', 'listMcpTokens', "A program's MCP tokens, newest first", {
    params: { id },
    responses: { 200: { description: 'The tokens (never the tokens themselves)', schema: mcpTokenListBody } },
  }),
  adminOperation('post', '/programs/:id/mcp-tokens/:tokenId/revoke', 'revokeMcpToken', 'Revoke an MCP token', {
    params: { id, tokenId: id },
    description: 'Refused at once on its next request. Revoking a revoked token changes nothing.',
    errors: ['not_found'],
    responses: { 200: { description: 'Revoked', schema: mcpTokenBody } },
  }),
];
