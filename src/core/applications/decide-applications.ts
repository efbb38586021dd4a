import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { forkDeps, type CoreDeps } from '../deps.ts';
import { Partner } from '../entities/partner.ts';
import { Program } from '../entities/program.ts';
import { PartnerApplication } from '../entities/partner-application.ts';
import { referralLink } from '../attribution/referral-link.ts';
import { createPartner } from '../programs/programs.ts';
import { createPartnerInvite } from '../programs/partner-invites.ts';
import { queueEmail } from '../email/queue-email.ts';

/**
 * Where approval links point: the service's public origin, how long the portal invite lasts, and
 * whether the demo page is on (the referral link of a program without a site then points at it).
 */
export type ApprovalLinks = { baseUrl: string; inviteTtlMs: number; demoPage: boolean };

/**
 * What became of one application. `approved`: the partner, their referral link and portal invite
 * link (also emailed; shown to the admin once); `skipped`: it was not pending (its status says why)
 * or is not an application of this program (`not_found`).
 */
export type Decision =
  | {
      applicationId: number;
      outcome: 'approved';
      partnerId: number;
      partnerCode: string;
      /** Null: the program has no domain or landing URL and the demo page is off. */
      referralLink: string | null;
      inviteUrl: string;
      deliveryIds: number[];
    }
  | { applicationId: number; outcome: 'rejected' }
  | { applicationId: number; outcome: 'skipped'; status: 'approved' | 'rejected' | 'not_found' };

/** A free referral code from the applicant's name: its letters and digits, then random hex. */
async function freeCode(em: CoreDeps['em'], name: string): Promise<string> {
  const stem =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '')
      .slice(0, 12) || 'partner';
  for (;;) {
    const code = `${stem}${randomBytes(3).toString('hex')}`;
    if (!(await em.count(Partner, { code }))) return code;
  }
}

/** Locks a pending application of the program, or says why it cannot be decided. */
async function pending(em: CoreDeps['em'], programId: number, id: number) {
  const app = await em.findOne(
    PartnerApplication,
    { id, program: programId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!app) return { skipped: { applicationId: id, outcome: 'skipped', status: 'not_found' } as const };
  if (app.status !== 'pending')
    return { skipped: { applicationId: id, outcome: 'skipped', status: app.status } as const };
  return { app };
}

/**
 * Approves applications, each in its own transaction: the partner is created with the terms
 * version and time the applicant accepted, gets a portal invite, and is emailed both links.
 */
export async function approveApplications(
  deps: CoreDeps,
  programId: number,
  ids: number[],
  links: ApprovalLinks,
): Promise<Decision[]> {
  const out: Decision[] = [];
  for (const id of [...new Set(ids)]) {
    out.push(
      await forkDeps(deps).em.transactional(async (em): Promise<Decision> => {
        const tx = { ...deps, em };
        const { app, skipped } = await pending(em, programId, id);
        if (skipped) return skipped;
        const program = await em.findOneOrFail(Program, { id: programId });
        const { partner, deliveryIds } = await createPartner(tx, programId, {
          code: await freeCode(em, app.name),
          name: app.name,
          email: app.email,
        });
        partner.termsVersion = app.termsVersion ?? null;
        partner.termsAcceptedAt = app.termsAcceptedAt ?? null;
        const invite = await createPartnerInvite(tx, programId, partner.id, links.inviteTtlMs);
        Object.assign(app, { status: 'approved', partner: partner.id, decidedAt: deps.clock() });
        await em.flush();
        const base = links.baseUrl.replace(/\/$/, '');
        const inviteUrl = `${base}/portal/invite/${invite.token}`;
        const referral = referralLink(
          { id: program.id, domain: program.domain ?? null, landingUrl: program.landingUrl ?? null },
          partner.code,
          { enabled: links.demoPage, origin: base },
        );
        await queueEmail(tx, {
          programId,
          dedupeKey: `application_approved:${app.id}`,
          recipient: { partnerId: partner.id },
          data: { kind: 'application_approved', link: inviteUrl, referralLink: referral },
        });
        return {
          applicationId: id,
          outcome: 'approved',
          partnerId: partner.id,
          partnerCode: partner.code,
          referralLink: referral,
          inviteUrl,
          deliveryIds,
        };
      }),
    );
  }
  return out;
}

/** Rejects applications with a reason (emailed to each applicant), each in its own transaction. */
export async function rejectApplications(
  deps: CoreDeps,
  programId: number,
  ids: number[],
  reason: string | null,
): Promise<Decision[]> {
  const out: Decision[] = [];
  for (const id of [...new Set(ids)]) {
    out.push(
      await forkDeps(deps).em.transactional(async (em): Promise<Decision> => {
        const { app, skipped } = await pending(em, programId, id);
        if (skipped) return skipped;
        Object.assign(app, { status: 'rejected', reason, decidedAt: deps.clock() });
        await em.flush();
        await queueEmail(
          { ...deps, em },
          {
            programId,
            dedupeKey: `application_rejected:${app.id}`,
            recipient: { to: app.email, name: app.name },
            data: { kind: 'application_rejected', reason },
          },
        );
        return { applicationId: id, outcome: 'rejected' };
      }),
    );
  }
  return out;
}
