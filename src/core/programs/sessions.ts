import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { Session, type SessionKind } from '../entities/session.ts';

export type { SessionKind };

/** A session as the HTTP edge needs it. `token` (the cookie value) only exists at creation. */
export type ActiveSession = {
  id: number;
  kind: SessionKind;
  partnerId: number | null;
  /** The staff user of an operator session; null: the ADMIN_TOKEN holder. */
  staffUserId: number | null;
  csrfToken: string;
  expiresAt: Date;
};

/** Opens a session lasting `ttlMs`; returns the cookie value once (only its hash is stored). */
export async function startSession(
  deps: CoreDeps,
  input: { kind: SessionKind; partnerId?: number; staffUserId?: number; ttlMs: number },
): Promise<ActiveSession & { token: string }> {
  const em = deps.em;
  const now = deps.clock();
  const token = randomBytes(32).toString('base64url');
  const row = em.create(Session, {
    kind: input.kind,
    tokenHash: sha256Hex(token),
    csrfToken: randomBytes(24).toString('base64url'),
    partner: input.partnerId ?? null,
    staffUser: input.staffUserId ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.ttlMs),
  });
  await em.flush();
  return {
    id: row.id,
    kind: row.kind,
    partnerId: row.partner ?? null,
    staffUserId: row.staffUser ?? null,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    token,
  };
}

/** The live session behind a cookie value, or null (unknown, ended or expired). */
export async function findSession(deps: CoreDeps, token: string): Promise<ActiveSession | null> {
  const row = await deps.em.findOne(Session, {
    tokenHash: sha256Hex(token),
    endedAt: null,
    expiresAt: { $gt: deps.clock() },
  });
  return row
    ? {
        id: row.id,
        kind: row.kind,
        partnerId: row.partner ?? null,
        staffUserId: row.staffUser ?? null,
        csrfToken: row.csrfToken,
        expiresAt: row.expiresAt,
      }
    : null;
}

/** Sign-out: the session stops working at once. Unknown tokens are ignored. */
export async function endSession(deps: CoreDeps, token: string): Promise<void> {
  await deps.em.nativeUpdate(Session, { tokenHash: sha256Hex(token), endedAt: null }, { endedAt: deps.clock() });
}

/** Ends every live session of a staff user (removed from their last program). */
export async function endStaffSessions(deps: CoreDeps, staffUserId: number): Promise<void> {
  await deps.em.nativeUpdate(Session, { staffUser: staffUserId, endedAt: null }, { endedAt: deps.clock() });
}

/** Drops sessions that expired or ended more than a day ago (called by the sweeper). */
export async function deleteStaleSessions(deps: CoreDeps): Promise<number> {
  const cutoff = new Date(deps.clock().getTime() - 86_400_000);
  return deps.em.nativeDelete(Session, { $or: [{ expiresAt: { $lt: cutoff } }, { endedAt: { $lt: cutoff } }] });
}
