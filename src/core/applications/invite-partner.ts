import type { CoreDeps } from '../deps.ts';
import { createPartnerInvite } from '../programs/partner-invites.ts';
import { queueEmail } from '../email/queue-email.ts';

/**
 * A portal invite for a partner (programs/partner-invites.ts), emailed to the partner when email
 * is on and they have an address, in the invite's transaction. `inviteUrl` is shown to the admin once.
 * @throws AppError `not_found`.
 */
export async function invitePartner(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  links: { baseUrl: string; inviteTtlMs: number },
): Promise<{ inviteUrl: string; expiresAt: Date; partnerId: number; emailed: boolean }> {
  return deps.em.transactional(async (em) => {
    const tx = { ...deps, em };
    const invite = await createPartnerInvite(tx, programId, partnerId, links.inviteTtlMs);
    const inviteUrl = `${links.baseUrl.replace(/\/$/, '')}/portal/invite/${invite.token}`;
    const emailed = await queueEmail(tx, {
      programId,
      dedupeKey: `invite:${partnerId}:${invite.expiresAt.getTime()}`,
      recipient: { partnerId },
      data: { kind: 'invite', link: inviteUrl },
    });
    return { inviteUrl, expiresAt: invite.expiresAt, partnerId, emailed: emailed !== null };
  });
}
