import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { StaffUser } from '../entities/staff-user.ts';

/** TOTP (RFC 6238) as the edge implements it with a maintained library; injected like the hasher. */
export type TotpPort = {
  /** A fresh random secret, base32. */
  generateSecret(): string;
  /** The `otpauth://` URI an authenticator app scans. */
  uri(secret: string, account: string): string;
  /** The time step a code matches (one step of drift either way), or null. */
  matchStep(secret: string, code: string, now: Date): number | null;
};

const CONTEXT = 'staff_user.totp_secret';

/**
 * Starts (or restarts) TOTP enrolment: a new secret, sealed at rest, returned once with its URI.
 * Sign-in asks for codes only after `confirmTotp`. @throws AppError `conflict` (already enrolled).
 */
export async function startTotpEnrolment(
  deps: CoreDeps,
  totp: TotpPort,
  staffUserId: number,
): Promise<{ secret: string; uri: string }> {
  const user = await deps.em.findOneOrFail(StaffUser, { id: staffUserId });
  if (user.totpEnabledAt) throw new AppError('conflict', 'TOTP is already enabled');
  if (!deps.sealer?.canSeal) throw new AppError('conflict', 'TOTP needs DATA_ENCRYPTION_KEYS to store its secret');
  const secret = totp.generateSecret();
  user.totpSecret = deps.sealer.seal(secret, CONTEXT);
  await deps.em.flush();
  return { secret, uri: totp.uri(secret, user.email) };
}

/** Confirms enrolment with a first code. @throws AppError `invalid_request` (no enrolment, wrong code). */
export async function confirmTotp(deps: CoreDeps, totp: TotpPort, staffUserId: number, code: string): Promise<void> {
  const user = await deps.em.findOneOrFail(StaffUser, { id: staffUserId });
  if (!user.totpSecret || user.totpEnabledAt) throw new AppError('invalid_request', 'Start TOTP enrolment first');
  const step = totp.matchStep(open(deps, user.totpSecret), code, deps.clock());
  if (step === null) throw new AppError('invalid_request', 'Wrong code', { field: 'code' });
  user.totpEnabledAt = deps.clock();
  user.totpLastStep = step;
  await deps.em.flush();
}

/**
 * Checks a sign-in code; each time step is accepted once (a replayed code fails).
 * @throws AppError `unauthorized`.
 */
export async function checkTotpCode(deps: CoreDeps, totp: TotpPort, staffUserId: number, code: string): Promise<void> {
  await deps.em.transactional(async (em) => {
    const user = await em.findOneOrFail(StaffUser, { id: staffUserId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const step = user.totpSecret ? totp.matchStep(open(deps, user.totpSecret), code, deps.clock()) : null;
    if (step === null || (user.totpLastStep != null && step <= user.totpLastStep))
      throw new AppError('unauthorized', 'Unknown email or wrong password');
    user.totpLastStep = step;
    await em.flush();
  });
}

function open(deps: CoreDeps, sealed: string): string {
  if (!deps.sealer) throw new AppError('conflict', 'TOTP needs DATA_ENCRYPTION_KEYS to read its secret');
  return deps.sealer.open(sealed, CONTEXT);
}
