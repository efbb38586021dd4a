import { createHmac } from 'node:crypto';
import type { CoreDeps, MailSettings } from '../deps.ts';
import { constantTimeEqual } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { PartnerEmailPrefs, type DigestFrequency } from '../entities/email-settings.ts';

/** A partner's email choices as the portal shows them (the defaults when none were saved). */
export type EmailPrefs = {
  commissionDigest: DigestFrequency;
  payoutEmails: boolean;
  statementEmails: boolean;
  unsubscribed: boolean;
};

const sign = (key: Buffer, partnerId: number) =>
  createHmac('sha256', key).update(`unsubscribe:${partnerId}`).digest('base64url');

/** The one-click unsubscribe link of a partner (RFC 8058): the partner id and its HMAC. */
export function unsubscribeUrl(mail: MailSettings, partnerId: number): string {
  return `${mail.baseUrl.replace(/\/$/, '')}/email/unsubscribe?token=${partnerId}.${sign(mail.linkKey, partnerId)}`;
}

/** The partner a signed unsubscribe token names. @throws AppError `not_found` (any bad token). */
export function readUnsubscribeToken(mail: MailSettings, token: string): number {
  const m = /^(\d{1,12})\.([\w-]{43})$/.exec(token);
  const id = m ? Number(m[1]) : 0;
  if (!m || !constantTimeEqual(m[2]!, sign(mail.linkKey, id)))
    throw new AppError('not_found', 'This unsubscribe link is not valid');
  return id;
}

export async function readEmailPrefs(deps: CoreDeps, partnerId: number): Promise<EmailPrefs> {
  const row = await deps.em.findOne(PartnerEmailPrefs, { partner: partnerId });
  return {
    commissionDigest: row?.commissionDigest ?? 'daily',
    payoutEmails: row?.payoutEmails ?? true,
    statementEmails: row?.statementEmails ?? true,
    unsubscribed: !!row?.unsubscribedAt,
  };
}

/** Saves a partner's choices (those given); `unsubscribed: false` subscribes again. */
export async function updateEmailPrefs(
  deps: CoreDeps,
  partnerId: number,
  change: Partial<EmailPrefs>,
): Promise<EmailPrefs> {
  const em = deps.em;
  if (!(await em.count(Partner, { id: partnerId }))) throw new AppError('not_found', 'No such partner');
  const row =
    (await em.findOne(PartnerEmailPrefs, { partner: partnerId })) ??
    em.create(PartnerEmailPrefs, { partner: partnerId, digestThrough: deps.clock() });
  if (change.commissionDigest) row.commissionDigest = change.commissionDigest;
  if (change.payoutEmails !== undefined) row.payoutEmails = change.payoutEmails;
  if (change.statementEmails !== undefined) row.statementEmails = change.statementEmails;
  if (change.unsubscribed !== undefined) row.unsubscribedAt = change.unsubscribed ? deps.clock() : null;
  await em.flush();
  return readEmailPrefs(deps, partnerId);
}

/** The one-click unsubscribe: the signed token's partner gets no more digests, payout or statement emails. */
export async function unsubscribeByToken(deps: CoreDeps, token: string): Promise<{ partnerId: number }> {
  if (!deps.mail) throw new AppError('not_found', 'Email is not enabled');
  const partnerId = readUnsubscribeToken(deps.mail, token);
  await updateEmailPrefs(deps, partnerId, { unsubscribed: true });
  return { partnerId };
}
