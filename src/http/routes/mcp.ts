import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { authenticateMcpToken } from '../../core/programs/mcp-tokens.ts';
import { handleMcpRequest } from '../../mcp/handle-mcp-request.ts';
import { keyRefused } from '../auth.ts';
import { json, route } from '../route.ts';
import { defineOperation } from '../openapi/operation.ts';
import { clientAddress } from '../client-address.ts';

const BEARER = /^Bearer[ ]+(trk_mcp_[A-Za-z0-9_-]{16,64})$/;

/**
 * POST /mcp: the MCP server over Streamable HTTP (stateless, JSON responses; src/mcp). The bearer
 * is an MCP token: its program is the only one the tools see, its scope decides the write tools.
 * An unknown or revoked token counts against the client like an unknown API key (auth.ts); a
 * valid one spends its program's per-key budget (`rate_limit_per_minute`) of its own.
 */
export function mcpRoute(ctx: RouteContext) {
  return route(async (event) => {
    const m = BEARER.exec(event.req.headers.get('authorization')?.trim() ?? '');
    if (!m)
      throw new AppError('unauthorized', 'Missing or malformed Authorization header; expected "Bearer <MCP token>"');
    const grant = await authenticateMcpToken(ctx.deps(), m[1]!).catch((err: unknown) => keyRefused(ctx, event, err));
    const d = await ctx.rateLimiter.hit(`mcp${grant.tokenId}`, grant.rateLimitPerMinute);
    if (!d.allowed) {
      ctx.metrics.rateLimited.inc({ limiter: 'mcp_token' });
      throw new AppError(
        'rate_limited',
        `Rate limit of ${grant.rateLimitPerMinute} requests per minute exceeded`,
        {},
        { retry_after_seconds: d.retryAfterSeconds },
      );
    }
    return handleMcpRequest(ctx, grant, event.req, {
      ip: clientAddress(event, ctx.config.TRUST_PROXY),
      userAgent: event.req.headers.get('user-agent'),
    });
  });
}

/** GET /mcp: no server-sent stream is offered (every answer comes in the POST's response). */
export function mcpStreamRoute() {
  return route(async () =>
    json({ error: { code: 'method_not_allowed', message: 'POST JSON-RPC messages to /mcp' } }, 405, { allow: 'POST' }),
  );
}

export const mcpOperations = [
  defineOperation({
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    tag: 'Apps',
    security: ['mcpToken'],
    summary: 'MCP server for AI assistants (Streamable HTTP)',
    description:
      'JSON-RPC messages of the Model Context Protocol (`initialize`, `tools/list`, `tools/call`, …), answered as JSON; stateless (no `Mcp-Session-Id`). The tools read the token’s program only; approvals and payout previews need the `write` scope. See docs/mcp.md.',
    body: z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string().optional() }),
    responses: {
      200: { description: 'The JSON-RPC response', schema: z.looseObject({ jsonrpc: z.literal('2.0') }) },
      202: { description: 'A notification or response was accepted' },
    },
    errors: ['unauthorized', 'rate_limited'],
  }),
  defineOperation({
    method: 'get',
    path: '/mcp',
    operationId: 'mcpStream',
    tag: 'Apps',
    security: [],
    summary: 'Not offered: 405 (the server sends no stream of its own)',
    responses: {
      405: {
        description: 'Method not allowed',
        schema: z.strictObject({
          error: z.strictObject({ code: z.literal('method_not_allowed'), message: z.string() }),
        }),
      },
    },
    errors: [],
  }),
];
