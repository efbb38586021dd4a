import { rollupTriggers } from './daily-rollup.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { Customer } from './customer.ts';
import type { AttributionSource, SaleProvider, SaleType, SubscriptionInterval } from '../shared/vocabulary.ts';
import { PartnerCode } from './partner-code.ts';

/** A live sale event. Test sales live in `TestEvent`, apart from production data. */
export const Sale = defineEntity({
  name: 'Sale',
  triggers: rollupTriggers('sale'),
  uniques: [{ properties: ['program', 'transactionId'] }],
  indexes: [
    { properties: ['program', 'subscriptionId'] },
    { properties: ['partner', 'receivedAt'] },
    { properties: ['program', 'receivedAt'] },
    // Whether a sale is its customer's first payment (a first-sale reward: rewards/sale-reward.ts).
    { name: 'sale_customer_id_index', properties: ['customer'], where: 'customer_id is not null' },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    transactionId: p.string(),
    /** Positive, minor units of `currency`. */
    amountCents: p.bigint('number'),
    /** Stored as sent, never used in calculations. */
    taxCents: p.bigint('number').nullable(),
    /**
     * What the customer paid, tax included, when it differs from `amountCents` (a provider sale
     * whose program excludes tax from the commission base). Provider refunds are amounts of this
     * payment and are scaled onto `amountCents`. `null`: the same as `amountCents`.
     */
    paidCents: p.bigint('number').nullable(),
    currency: p.string().length(3),
    saleType: p.string().$type<SaleType>(),
    lineItems: p.json<Record<string, unknown> | unknown[]>().nullable(),
    isRecurring: p.boolean().default(false),
    subscriptionId: p.string().nullable(),
    subscriptionInterval: p.string().$type<SubscriptionInterval>().nullable(),
    productId: p.string().nullable(),
    occurredAt: p.datetime().nullable(),
    provider: p.string().$type<SaleProvider>().nullable(),
    providerPaymentId: p.string().nullable(),
    customer: () => p.manyToOne(Customer).mapToPk().nullable(),
    partner: () => p.manyToOne(Partner).mapToPk().nullable(),
    clickId: p.string().nullable(),
    /** How the partner was found (null on sales recorded before this was stored). */
    attributedVia: p.string().$type<AttributionSource>().nullable(),
    /** The partner's code that attributed the sale (`attributedVia` `coupon`). */
    partnerCode: () => p.manyToOne(PartnerCode).mapToPk().nullable(),
    visitorId: p.string().nullable(),
    /** Cumulative refunded amount, capped at `amountCents`. */
    refundedCents: p.bigint('number').default(0),
    /** Time the call was received: the clock for commissions, windows and holds. */
    receivedAt: p.datetime(),
  },
});
export type ISale = InferEntity<typeof Sale>;
