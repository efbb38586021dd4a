import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { roleWithin, type StaffRoleName } from '../shared/staff-roles.ts';
import { Program } from '../entities/program.ts';
import { StaffUser } from '../entities/staff-user.ts';
import { StaffRole } from '../entities/staff-role.ts';
import { StaffInvite } from '../entities/staff-invite.ts';
import { StaffToken } from '../entities/staff-token.ts';
import { endStaffSessions } from '../programs/sessions.ts';
import { queueEmail } from '../email/queue-email.ts';

/** A member of a program's team as the Team page lists it. */
export type StaffMember = {
  userId: number;
  email: string;
  role: StaffRoleName;
  /** False until the invite link was used to set a password. */
  hasPassword: boolean;
  totpEnabled: boolean;
  addedAt: Date;
};

/**
 * Gives `email` a role in the program, creating the user if new. A user without a password gets
 * a fresh one-time invite (its clear token returned once, for the link; earlier ones stop working).
 * @throws AppError `not_found` (no such program), `conflict` (already a member: change the role).
 */
export async function addStaffMember(
  deps: CoreDeps,
  programId: number,
  input: {
    email: string;
    role: StaffRoleName;
    inviteTtlMs: number;
    /** The invite page's URL for a token: given, the invite is also emailed (when email is on). */
    inviteLink?: (token: string) => string;
  },
): Promise<{ member: StaffMember; inviteToken: string | null; inviteExpiresAt: Date | null }> {
  return deps.em.transactional(async (em) => {
    if (!(await em.findOne(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
    const now = deps.clock();
    const email = input.email.trim().toLowerCase();
    const user = (await em.findOne(StaffUser, { email })) ?? em.create(StaffUser, { email, createdAt: now });
    await em.flush();
    if (await em.findOne(StaffRole, { user: user.id, program: programId }))
      throw new AppError('conflict', 'Already a member of this program; change their role instead');
    const role = em.create(StaffRole, { user: user.id, program: programId, role: input.role, createdAt: now });
    let inviteToken: string | null = null;
    let inviteExpiresAt: Date | null = null;
    if (!user.passwordHash) {
      await em.nativeUpdate(StaffInvite, { user: user.id, usedAt: null }, { expiresAt: now });
      inviteToken = randomBytes(32).toString('base64url');
      inviteExpiresAt = new Date(now.getTime() + input.inviteTtlMs);
      const tokenHash = sha256Hex(inviteToken);
      em.create(StaffInvite, { user: user.id, tokenHash, createdAt: now, expiresAt: inviteExpiresAt });
      if (input.inviteLink)
        await queueEmail(
          { ...deps, em },
          {
            programId,
            dedupeKey: `staff_invite:${tokenHash}`,
            recipient: { to: email, name: email },
            data: { kind: 'staff_invite', link: input.inviteLink(inviteToken), role: input.role },
          },
        );
    }
    await em.flush();
    return { member: toMember(user, role), inviteToken, inviteExpiresAt };
  });
}

/** The program's team, oldest member first. */
export async function listStaffMembers(deps: CoreDeps, programId: number): Promise<StaffMember[]> {
  const roles = await deps.em.find(StaffRole, { program: programId }, { orderBy: { id: 'asc' } });
  const users = await deps.em.find(StaffUser, { id: { $in: roles.map((r) => r.user) } });
  const byId = new Map(users.map((u) => [u.id, u]));
  return roles.map((r) => toMember(byId.get(r.user)!, r));
}

/** One member. @throws AppError `not_found`. */
export async function getStaffMember(deps: CoreDeps, programId: number, userId: number): Promise<StaffMember> {
  const role = await deps.em.findOne(StaffRole, { program: programId, user: userId });
  if (!role) throw new AppError('not_found', 'No such member of this program');
  return toMember(await deps.em.findOneOrFail(StaffUser, { id: userId }), role);
}

/**
 * Refuses a change that would leave the program without an owner: the program's owner roles are
 * locked first, so two owners removed at once cannot both pass the check.
 */
async function keepAnOwner(em: CoreDeps['em'], programId: number, userId: number): Promise<void> {
  const owners = await em.find(
    StaffRole,
    { program: programId, role: 'owner' },
    { lockMode: LockMode.PESSIMISTIC_WRITE, fields: ['user'] },
  );
  if (owners.length === 1 && owners[0]!.user === userId)
    throw new AppError(
      'conflict',
      "This is the program's last owner: make another member owner first (the operator token stays owner of every program)",
    );
}

/**
 * Changes a member's role. Their tokens of the program wider than the new role are revoked.
 * @throws AppError `not_found`; `conflict` when it would leave the program without an owner.
 */
export async function changeStaffRole(
  deps: CoreDeps,
  programId: number,
  userId: number,
  roleName: StaffRoleName,
): Promise<StaffMember> {
  return deps.em.transactional(async (em) => {
    const role = await em.findOne(StaffRole, { program: programId, user: userId });
    if (!role) throw new AppError('not_found', 'No such member of this program');
    if (role.role === 'owner' && roleName !== 'owner') await keepAnOwner(em, programId, userId);
    role.role = roleName;
    await em.flush();
    // A token keeps the narrower of its role and the user's, so no wider token survives anyway;
    // one that was wider is revoked so its list says what it can still do.
    const tokens = await em.find(StaffToken, { user: userId, program: programId, revokedAt: null });
    for (const t of tokens) if (!roleWithin(t.role, roleName)) t.revokedAt = deps.clock();
    await em.flush();
    return toMember(await em.findOneOrFail(StaffUser, { id: userId }), role);
  });
}

/**
 * Removes a member from the program, at once: their tokens of the program are revoked, and when
 * it was their last program, their sessions end.
 * @throws AppError `not_found`; `conflict` for the program's last owner.
 */
export async function removeStaffMember(deps: CoreDeps, programId: number, userId: number): Promise<StaffMember> {
  const member = await getStaffMember(deps, programId, userId);
  const now = deps.clock();
  const lastProgram = await deps.em.transactional(async (em) => {
    if (member.role === 'owner') await keepAnOwner(em, programId, userId);
    await em.nativeDelete(StaffRole, { program: programId, user: userId });
    await em.nativeUpdate(StaffToken, { user: userId, program: programId, revokedAt: null }, { revokedAt: now });
    return !(await em.count(StaffRole, { user: userId }));
  });
  if (lastProgram) await endStaffSessions(deps, userId);
  return member;
}

function toMember(
  user: { id: number; email: string; passwordHash?: string | null; totpEnabledAt?: Date | null },
  role: { role: StaffRoleName; createdAt: Date },
): StaffMember {
  return {
    userId: user.id,
    email: user.email,
    role: role.role,
    hasPassword: !!user.passwordHash,
    totpEnabled: !!user.totpEnabledAt,
    addedAt: role.createdAt,
  };
}
