import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { roleWithin, type StaffRoleName } from '../shared/staff-roles.ts';
import { StaffRole } from '../entities/staff-role.ts';
import { StaffToken } from '../entities/staff-token.ts';
import { StaffUser } from '../entities/staff-user.ts';

/** Staff tokens start with this, so a leaked one is recognisable (and told from ADMIN_TOKEN). */
export const STAFF_TOKEN_PREFIX = 'stf_';

/** A token as its owner's list shows it (never the token itself). */
export type StaffTokenInfo = {
  id: number;
  name: string;
  programId: number;
  role: StaffRoleName;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** A staff token's caller: its user, and the program and role it is limited to. */
export type StaffTokenCaller = {
  tokenId: number;
  staffUserId: number;
  email: string;
  programId: number;
  role: StaffRoleName;
};

/**
 * Creates a token of the user for one program, with a role no wider than theirs there. The token
 * is returned once; only its SHA-256 hash is stored.
 * @throws AppError `forbidden` (no role in the program, or a wider role asked).
 */
export async function createStaffToken(
  deps: CoreDeps,
  staffUserId: number,
  input: { name: string; programId: number; role: StaffRoleName },
): Promise<{ token: string; info: StaffTokenInfo }> {
  const mine = await deps.em.findOne(StaffRole, { user: staffUserId, program: input.programId });
  if (!mine || !roleWithin(input.role, mine.role))
    throw new AppError(
      'forbidden',
      `A token may not have more than your own role (${mine?.role ?? 'none'}) in this program`,
    );
  const token = STAFF_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = deps.em.create(StaffToken, {
    user: staffUserId,
    program: input.programId,
    role: input.role,
    name: input.name,
    tokenHash: sha256Hex(token),
    prefix: token.slice(0, STAFF_TOKEN_PREFIX.length + 6),
    createdAt: deps.clock(),
  });
  await deps.em.flush();
  return { token, info: toInfo(row) };
}

/** The user's tokens, newest first, revoked ones included. */
export async function listStaffTokens(deps: CoreDeps, staffUserId: number): Promise<StaffTokenInfo[]> {
  const rows = await deps.em.find(StaffToken, { user: staffUserId }, { orderBy: { id: 'desc' }, limit: 200 });
  return rows.map(toInfo);
}

/** Revokes one of the user's tokens, at once. @throws AppError `not_found`. */
export async function revokeStaffToken(deps: CoreDeps, staffUserId: number, tokenId: number): Promise<StaffTokenInfo> {
  const row = await deps.em.findOne(StaffToken, { id: tokenId, user: staffUserId });
  if (!row) throw new AppError('not_found', 'No such token');
  row.revokedAt ??= deps.clock();
  await deps.em.flush();
  return toInfo(row);
}

/**
 * The caller of a staff token, read from the database on every call (a revoked token or a
 * removed user is refused at once), and its last use recorded (at most once a minute).
 * @throws AppError `unauthorized` (unknown or revoked token).
 */
export async function authenticateStaffToken(deps: CoreDeps, token: string): Promise<StaffTokenCaller> {
  const row = await deps.em.findOne(StaffToken, { tokenHash: sha256Hex(token), revokedAt: null });
  if (!row) throw new AppError('unauthorized', 'Unknown or revoked token');
  const user = await deps.em.findOneOrFail(StaffUser, { id: row.user });
  const now = deps.clock();
  await deps.em.nativeUpdate(
    StaffToken,
    { id: row.id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: new Date(now.getTime() - 60_000) } }] },
    { lastUsedAt: now },
  );
  return { tokenId: row.id, staffUserId: user.id, email: user.email, programId: row.program, role: row.role };
}

function toInfo(row: {
  id: number;
  name: string;
  program: number;
  role: StaffRoleName;
  prefix: string;
  createdAt: Date;
  lastUsedAt?: Date | null;
  revokedAt?: Date | null;
}): StaffTokenInfo {
  return {
    id: row.id,
    name: row.name,
    programId: row.program,
    role: row.role,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt ?? null,
    revokedAt: row.revokedAt ?? null,
  };
}
