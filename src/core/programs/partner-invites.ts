import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { PartnerInvite } from '../entities/partner-invite.ts';

/** Hashes and checks portal passwords; the implementation (a maintained library) is injected. */
export type PasswordHasher = {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /**
   * A hash of a random secret made like every real one (same algorithm and cost): an unknown login
   * is checked against it, so it costs what a wrong password costs.
   */
  standIn(): Promise<string>;
};

/** Portal password rules: long enough to resist guessing, short enough for bcrypt's 72 bytes. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX_BYTES = 72;

/**
 * Creates a one-time invite for a partner of the program. The clear token is returned once
 * (it goes into the invite link); earlier unused invites of the partner stop working.
 * @throws AppError `not_found` (no such partner in the program).
 */
export async function createPartnerInvite(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  ttlMs: number,
): Promise<{ token: string; expiresAt: Date; partnerId: number }> {
  const em = deps.em;
  const partner = await em.findOne(Partner, { id: partnerId, program: programId });
  if (!partner) throw new AppError('not_found', 'No such partner in this program');
  const now = deps.clock();
  await em.nativeUpdate(PartnerInvite, { partner: partnerId, usedAt: null }, { expiresAt: now });
  const token = randomBytes(32).toString('base64url');
  const invite = em.create(PartnerInvite, {
    partner: partnerId,
    tokenHash: sha256Hex(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlMs),
  });
  await em.flush();
  return { token, expiresAt: invite.expiresAt, partnerId };
}

/** What the invite page shows before the partner picks a password. @throws AppError `not_found`. */
export async function describePartnerInvite(
  deps: CoreDeps,
  token: string,
): Promise<{ partnerName: string; partnerCode: string; expiresAt: Date }> {
  const em = deps.em;
  const invite = await usableInvite(em, deps.clock(), token);
  const partner = await em.findOneOrFail(Partner, { id: invite.partner });
  return { partnerName: partner.name, partnerCode: partner.code, expiresAt: invite.expiresAt };
}

/**
 * Accepts an invite: sets the partner's password and uses the invite up, in one transaction
 * (a second use of the same link finds it used).
 * @throws AppError `not_found` (unknown, used or expired invite), `invalid_request` (weak password).
 */
export async function acceptPartnerInvite(
  deps: CoreDeps,
  hasher: PasswordHasher,
  token: string,
  password: string,
): Promise<{ partnerId: number }> {
  checkPassword(password);
  const passwordHash = await hasher.hash(password);
  return deps.em.transactional(async (em) => {
    const invite = await usableInvite(em, deps.clock(), token, true);
    invite.usedAt = deps.clock();
    const partner = await em.findOneOrFail(Partner, { id: invite.partner });
    partner.passwordHash = passwordHash;
    await em.flush();
    return { partnerId: partner.id };
  });
}

/**
 * Checks a partner's credentials. `login` is the partner's referral code or email; an email
 * shared by partners of several programs signs in to the one whose password matches.
 * @throws AppError `unauthorized` (same answer for unknown login and wrong password).
 */
export async function verifyPartnerPassword(
  deps: CoreDeps,
  hasher: PasswordHasher,
  login: string,
  password: string,
): Promise<{ partnerId: number }> {
  const candidates = await deps.em.find(
    Partner,
    { $or: [{ code: login }, { email: login }, { email: login.toLowerCase() }], passwordHash: { $ne: null } },
    { limit: 20, orderBy: { id: 'asc' } },
  );
  for (const p of candidates) {
    if (p.passwordHash && (await hasher.verify(password, p.passwordHash))) return { partnerId: p.id };
  }
  // Spend the same time on an unknown login as on a wrong password: the same check at the same cost.
  if (!candidates.length) await hasher.verify(password, await hasher.standIn());
  throw new AppError('unauthorized', 'Unknown login or wrong password');
}

/** The password rules of every sign-in (portal and staff). @throws AppError `invalid_request`. */
export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN)
    throw new AppError('invalid_request', `The password needs at least ${PASSWORD_MIN} characters`, {
      field: 'password',
    });
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES)
    throw new AppError('invalid_request', `The password may have at most ${PASSWORD_MAX_BYTES} bytes`, {
      field: 'password',
    });
}

async function usableInvite(em: CoreDeps['em'], now: Date, token: string, lock = false) {
  const invite = await em.findOne(
    PartnerInvite,
    { tokenHash: sha256Hex(token) },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!invite) throw new AppError('not_found', 'This invite link is not valid');
  if (invite.usedAt) throw new AppError('not_found', 'This invite link was already used; sign in instead');
  if (invite.expiresAt <= now)
    throw new AppError('not_found', 'This invite link has expired; ask the program for a new one');
  return invite;
}
