import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { constantTimeEqual, sha256Hex } from '../shared/crypto.ts';
import { McpToken, type IMcpToken, type McpScope } from '../entities/mcp-token.ts';
import { Program } from '../entities/program.ts';

/** An issued token: the clear token is returned here once and never stored. */
export type IssuedMcpToken = { row: IMcpToken; token: string };

/**
 * What a request authenticated with an MCP token may touch: one program, one scope; and the
 * program's per-key request budget, which each token spends like an API key.
 */
export type McpGrant = { tokenId: number; programId: number; scope: McpScope; rateLimitPerMinute: number };

/** Issues a token of `scope` for the program. @throws AppError `not_found` (program). */
export async function issueMcpToken(
  deps: CoreDeps,
  programId: number,
  input: { scope: McpScope; name: string | null },
): Promise<IssuedMcpToken> {
  const em = deps.em;
  await em.findOneOrFail(
    Program,
    { id: programId },
    { failHandler: () => new AppError('not_found', 'No such program') },
  );
  const token = `trk_mcp_${randomBytes(24).toString('base64url')}`;
  const row = em.create(McpToken, {
    program: programId,
    scope: input.scope,
    name: input.name,
    tokenHash: sha256Hex(token),
    prefix: token.slice(0, 12),
    createdAt: deps.clock(),
    revokedAt: null,
  });
  await em.flush();
  return { row, token };
}

/** Revokes a token at once (idempotent). @throws AppError `not_found` (not a token of this program). */
export async function revokeMcpToken(deps: CoreDeps, programId: number, tokenId: number): Promise<IMcpToken> {
  const row = await deps.em.findOne(McpToken, { id: tokenId, program: programId });
  if (!row) throw new AppError('not_found', 'No such MCP token in this program');
  row.revokedAt ??= deps.clock();
  await deps.em.flush();
  return row;
}

/** The program's tokens, newest first (hashes never leave core). */
export function listMcpTokens(deps: CoreDeps, programId: number): Promise<IMcpToken[]> {
  return deps.em.find(McpToken, { program: programId }, { orderBy: { id: 'desc' } });
}

/** Resolves a bearer token to its grant. @throws AppError `unauthorized` (unknown or revoked). */
export async function authenticateMcpToken(deps: CoreDeps, token: string): Promise<McpGrant> {
  const hash = sha256Hex(token);
  const row = await deps.em.findOne(McpToken, { tokenHash: hash });
  // Constant-time comparison: defence in depth after the indexed lookup (as for API keys).
  if (!row || !constantTimeEqual(row.tokenHash, hash) || row.revokedAt)
    throw new AppError('unauthorized', 'Invalid or revoked MCP token');
  const program = await deps.em.findOneOrFail(Program, { id: row.program }, { fields: ['rateLimitPerMinute'] });
  return { tokenId: row.id, programId: row.program, scope: row.scope, rateLimitPerMinute: program.rateLimitPerMinute };
}
