import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { StaffUser } from '../entities/staff-user.ts';
import { StaffInvite } from '../entities/staff-invite.ts';
import { checkPassword, type PasswordHasher } from '../programs/partner-invites.ts';
import { checkTotpCode, type TotpPort } from './staff-totp.ts';
import { StaffRole } from '../entities/staff-role.ts';
import { endStaffSessions } from '../programs/sessions.ts';
import { queueEmail } from '../email/queue-email.ts';
import { randomBytes } from 'node:crypto';

/** What the staff invite page shows before a password is chosen. @throws AppError `not_found`. */
export async function describeStaffInvite(deps: CoreDeps, token: string): Promise<{ email: string; expiresAt: Date }> {
  const invite = await usableInvite(deps.em, deps.clock(), token);
  const user = await deps.em.findOneOrFail(StaffUser, { id: invite.user });
  return { email: user.email, expiresAt: invite.expiresAt };
}

/**
 * Accepts a staff invite: sets the password and uses the invite up, in one transaction.
 * @throws AppError `not_found` (unknown, used or expired invite), `invalid_request` (weak password).
 */
export async function acceptStaffInvite(
  deps: CoreDeps,
  hasher: PasswordHasher,
  token: string,
  password: string,
): Promise<{ staffUserId: number; email: string }> {
  checkPassword(password);
  const passwordHash = await hasher.hash(password);
  const r = await deps.em.transactional(async (em) => {
    const invite = await usableInvite(em, deps.clock(), token, true);
    invite.usedAt = deps.clock();
    const user = await em.findOneOrFail(StaffUser, { id: invite.user });
    const reset = !!user.passwordHash;
    user.passwordHash = passwordHash;
    await em.flush();
    return { staffUserId: user.id, email: user.email, reset };
  });
  // A new password (a reset link) ends the sessions opened with the old one.
  if (r.reset) await endStaffSessions(deps, r.staffUserId);
  return { staffUserId: r.staffUserId, email: r.email };
}

/**
 * Checks a staff user's email, password and (when enrolled) TOTP code. A missing code for an
 * enrolled user is `unauthorized` with `details.totp_required`; a wrong one the same answer as a
 * wrong password.
 * @throws AppError `unauthorized`.
 */
export async function verifyStaffSignIn(
  deps: CoreDeps,
  ports: { hasher: PasswordHasher; totp: TotpPort },
  input: { email: string; password: string; totpCode?: string },
): Promise<{ staffUserId: number }> {
  const user = await deps.em.findOne(StaffUser, { email: input.email.trim().toLowerCase() });
  const hash = user?.passwordHash ?? (await ports.hasher.standIn());
  const ok = await ports.hasher.verify(input.password, hash);
  if (!user?.passwordHash || !ok) throw new AppError('unauthorized', 'Unknown email or wrong password');
  if (user.totpEnabledAt) {
    if (!input.totpCode)
      throw new AppError('unauthorized', 'Enter the code of your authenticator app', { totp_required: true });
    await checkTotpCode(deps, ports.totp, user.id, input.totpCode);
  }
  return { staffUserId: user.id };
}

async function usableInvite(em: CoreDeps['em'], now: Date, token: string, lock = false) {
  const invite = await em.findOne(
    StaffInvite,
    { tokenHash: sha256Hex(token) },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!invite) throw new AppError('not_found', 'This invite link is not valid');
  if (invite.usedAt) throw new AppError('not_found', 'This invite link was already used; sign in instead');
  if (invite.expiresAt <= now) throw new AppError('not_found', 'This invite link has expired; ask for a new one');
  return invite;
}

/**
 * "Forgot your password": emails a staff user a one-time link to choose a new password (the invite
 * page; earlier unused links stop working). Says nothing about whether the address is known: an
 * unknown one, a user in no program, or email switched off write nothing. The email is branded with
 * the user's oldest program.
 */
export async function requestStaffPasswordReset(
  deps: CoreDeps,
  input: { email: string; ttlMs: number; link: (token: string) => string },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await deps.em.transactional(async (em) => {
    const user = await em.findOne(StaffUser, { email });
    const role = user && (await em.findOne(StaffRole, { user: user.id }, { orderBy: { id: 'asc' } }));
    if (!user || !role || !deps.mail) return;
    const now = deps.clock();
    await em.nativeUpdate(StaffInvite, { user: user.id, usedAt: null }, { expiresAt: now });
    const token = randomBytes(32).toString('base64url');
    const tokenHash = sha256Hex(token);
    em.create(StaffInvite, {
      user: user.id,
      tokenHash,
      createdAt: now,
      expiresAt: new Date(now.getTime() + input.ttlMs),
    });
    await em.flush();
    await queueEmail(
      { ...deps, em },
      {
        programId: role.program,
        dedupeKey: `staff_reset:${tokenHash}`,
        recipient: { to: email, name: email },
        data: { kind: 'staff_password_reset', link: input.link(token) },
      },
    );
  });
}
