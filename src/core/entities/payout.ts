import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { PayoutRun } from './payout-run.ts';
import { PAYOUT_STATUSES, type PayoutRail, type PayoutStatus } from '../shared/vocabulary.ts';

export { PAYOUT_STATUSES, type PayoutStatus };

/**
 * A payout to a partner in one currency. It pays a set of whole credited commissions (each then
 * carries `payout` and `paidAt`), oldest first; the partner balance falls by `amountCents` in the
 * transaction that pays it. All amounts are minor units of `currency`.
 */
export const Payout = defineEntity({
  name: 'Payout',
  indexes: [{ properties: ['partner', 'currency', 'status'] }],
  uniques: [{ properties: ['program', 'externalId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    partner: () => p.manyToOne(Partner).mapToPk(),
    currency: p.string().length(3),
    status: p.string().$type<PayoutStatus>().default('open'),
    /** The amount first asked for (`null`: everything payable when it is paid). */
    requestedCents: p.bigint('number').nullable(),
    /**
     * Open: the most it may pay (reduced to fit when the balance falls). Paid: what the partner
     * received, `commissionsCents - nettedCents`; the balance fell by exactly this.
     */
    amountCents: p.bigint('number'),
    /** Paid: sum of the unpaid remainders of the commissions it paid. */
    commissionsCents: p.bigint('number').default(0),
    /** Paid: negative balance (refunds of earlier paid commissions) recovered from those commissions. */
    nettedCents: p.bigint('number').default(0),
    createdAt: p.datetime(),
    paidAt: p.datetime().nullable(),
    /** The run that created it (null: a payout opened or paid one at a time). */
    run: () => p.manyToOne(PayoutRun).mapToPk().nullable().index(),
    rail: p.string().$type<PayoutRail>().nullable(),
    /** The rail's own id of the payment (a Stripe transfer `tr_...`); unique per program. */
    externalId: p.string().nullable(),
    failedAt: p.datetime().nullable(),
    failureReason: p.string().nullable(),
  },
});
export type IPayout = InferEntity<typeof Payout>;
