import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/**
 * What an MCP token lets an assistant do: `read` answers questions; `write` also approves,
 * releases or rejects commissions and previews payouts. No scope executes a payout.
 */
export const MCP_SCOPES = ['read', 'write'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/**
 * A token of the MCP server (`/mcp`, `tracker mcp`), belonging to one program. Only the SHA-256
 * hash is stored; the token itself is shown once. A revoked token is refused at once.
 */
export const McpToken = defineEntity({
  name: 'McpToken',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    scope: p.string().$type<McpScope>(),
    /** A label for people (which assistant or person holds it). */
    name: p.string().nullable(),
    tokenHash: p.string().unique(),
    /** First characters of the token, safe to display (`trk_mcp_AbCd`). */
    prefix: p.string(),
    createdAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});
export type IMcpToken = InferEntity<typeof McpToken>;
