import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

export const EMAIL_KINDS = [
  'invite',
  'application_received',
  'application_approved',
  'application_rejected',
  'commission_digest',
  'payout_sent',
  'payout_failed',
  'monthly_statement',
  'staff_invite',
  'staff_password_reset',
] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/**
 * The email outbox: one row per message, rendered when written (in the transaction of its cause)
 * and sent by the email sweeper with retries. `dedupeKey` makes writing it idempotent; `leaseUntil`
 * is the claim of the process sending it: a process killed mid-send leaves the lease to expire and
 * the message is sent again (at most one duplicate). A message carrying a sign-in link is blanked
 * once sent (`sensitive`).
 */
export const EmailMessage = defineEntity({
  name: 'EmailMessage',
  indexes: [{ properties: ['sentAt', 'nextAttemptAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    partnerId: p.integer().nullable(),
    kind: p.string().$type<EmailKind>(),
    dedupeKey: p.string().unique(),
    toAddress: p.string(),
    fromName: p.string().nullable(),
    replyTo: p.string().nullable(),
    subject: p.text(),
    textBody: p.text(),
    htmlBody: p.text(),
    /** One-click unsubscribe URL (RFC 8058); null for messages a partner cannot opt out of. */
    unsubscribeUrl: p.text().nullable(),
    sensitive: p.boolean().default(false),
    createdAt: p.datetime(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    /** Set when it ran out of attempts. */
    failedAt: p.datetime().nullable(),
    lastError: p.text().nullable(),
  },
});
export type IEmailMessage = InferEntity<typeof EmailMessage>;
