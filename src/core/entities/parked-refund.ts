import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { RefundJob } from '../jobs/refund-job.ts';

/** Only `applied` is final: a sale recorded later still applies the others (parked-refunds.ts). */
export const PARKED_REFUND_STATUSES = ['parked', 'applied', 'not_recorded', 'unmatched'] as const;
export type ParkedRefundStatus = (typeof PARKED_REFUND_STATUSES)[number];

/**
 * A provider refund or dispute that arrived before its sale, kept until the sale is recorded
 * (`applied`, once, with the refund use-case's own outcome), the sale's event is processed without
 * recording a sale (`not_recorded`: the payment was not referred, or its customer was not known yet),
 * or the horizon (`PARKED_REFUND_DAYS`) passes (`unmatched`, listed for the merchant). A sale
 * recorded later still applies the last two. Providers do not order
 * their deliveries: Stripe may send `charge.refunded` or a dispute before the checkout event, and a
 * basil invoice's refund names a PaymentIntent the sale learns only from a later link event.
 */
export const ParkedRefund = defineEntity({
  name: 'ParkedRefund',
  uniques: [{ properties: ['program', 'dedupeKey'] }],
  indexes: [
    { properties: ['status', 'parkedAt'] },
    { properties: ['program', 'transactionId'] },
    { properties: ['program', 'saleAlias'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    provider: p.string().nullable(),
    /** The id the refund names (a payment, order or transaction id of the provider). */
    transactionId: p.string(),
    /** A second id of the sale the refund carries (RefundJob.saleAlias). */
    saleAlias: p.string().nullable(),
    /** The transaction and the refund's idempotency key: a redelivery or replay parks nothing twice. */
    dedupeKey: p.text(),
    /** The refund job, run as it arrived once its sale exists. */
    job: p.json<RefundJob>(),
    webhookEventId: p.integer().nullable(),
    status: p.string().$type<ParkedRefundStatus>().default('parked'),
    parkedAt: p.datetime(),
    resolvedAt: p.datetime().nullable(),
    /** The refund use-case's result when applied; the reason otherwise. */
    outcome: p.json<unknown>().nullable(),
  },
});
export type IParkedRefund = InferEntity<typeof ParkedRefund>;
