import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { DIGEST_FREQUENCIES, type DigestFrequency } from '../shared/vocabulary.ts';

/** The merchant's sender name and reply-to address on emails to the program's partners. */
export const EmailSettings = defineEntity({
  name: 'EmailSettings',
  properties: {
    program: () => p.manyToOne(Program).primary().mapToPk().deleteRule('cascade'),
    senderName: p.string().nullable(),
    replyTo: p.string().nullable(),
    updatedAt: p.datetime(),
  },
});
export type IEmailSettings = InferEntity<typeof EmailSettings>;

export { DIGEST_FREQUENCIES, type DigestFrequency };

/**
 * A partner's email choices (no row: the defaults, daily digest and every email on).
 * `digestThrough`: commissions created before it were in a digest already.
 * `unsubscribedAt`: the one-click unsubscribe; stops every email but account ones (invite, decision).
 */
export const PartnerEmailPrefs = defineEntity({
  name: 'PartnerEmailPrefs',
  properties: {
    partner: () => p.manyToOne(Partner).primary().mapToPk().deleteRule('cascade'),
    commissionDigest: p.string().$type<DigestFrequency>().default('daily'),
    payoutEmails: p.boolean().default(true),
    statementEmails: p.boolean().default(true),
    unsubscribedAt: p.datetime().nullable(),
    digestThrough: p.datetime().nullable(),
  },
});
export type IPartnerEmailPrefs = InferEntity<typeof PartnerEmailPrefs>;
