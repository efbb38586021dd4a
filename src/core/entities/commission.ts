import { rollupTriggers } from './daily-rollup.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { RewardApplied, HoldRecord } from './program-rules.ts';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { Sale } from './sale.ts';
import { Customer } from './customer.ts';
import { Payout } from './payout.ts';
import { COMMISSION_STATUSES, type CommissionStatus } from '../shared/vocabulary.ts';

export { COMMISSION_STATUSES, type CommissionStatus };

/**
 * A partner's commission on one sale, in the sale's currency (never converted), or on one lead
 * (`leadCustomer`, no sale: a reward per signup, in the rules' currency). Exactly one of the two is set.
 */
export const Commission = defineEntity({
  name: 'Commission',
  triggers: rollupTriggers('commission'),
  indexes: [
    { properties: ['status', 'createdAt'] },
    { properties: ['program', 'createdAt'] },
    // A partner's count (portal list total, by status too) from the index alone.
    { properties: ['partner', 'status'] },
    // A partner's credited, unpaid commissions (the statement's sum) without reading the rest.
    {
      name: 'commission_unpaid_index',
      properties: ['partner', 'currency'],
      include: ['amountCents', 'reversedCents'],
      where: 'credited_at is not null and paid_at is null',
    },
  ],
  checks: [{ name: 'commission_sale_or_lead', expression: '(sale_id is null) <> (lead_customer_id is null)' }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    sale: () => p.manyToOne(Sale).mapToPk().nullable().unique().deleteRule('no action'),
    /** The customer whose lead earned it (reward per lead): at most one per customer. */
    leadCustomer: () => p.manyToOne(Customer).mapToPk().nullable().unique().deleteRule('no action'),
    partner: () => p.manyToOne(Partner).mapToPk().index(),
    /** Original commission, minor units of `currency`. */
    amountCents: p.bigint('number'),
    /** Cumulative amount reversed by refunds; `amountCents - reversedCents` is what remains. */
    reversedCents: p.bigint('number').default(0),
    currency: p.string().length(3),
    /** The percentage applied; 0 for a flat reward (`reward` says which rule and its inputs). */
    rateBps: p.integer(),
    /** Which reward rule gave the amount, with its inputs (reward-rules.ts); null before rules existed. */
    reward: p.json<RewardApplied>().nullable(),
    status: p.string().$type<CommissionStatus>().default('pending'),
    reason: p.text().nullable(),
    /** Set when the commission was credited to the partner balance (only then do refunds deduct). */
    creditedAt: p.datetime().nullable(),
    /** Set when paid out to the partner; a later refund warns the advertiser. */
    paidAt: p.datetime().nullable(),
    /**
     * Held from automatic (hold-period) approval until the advertiser decides: a disputed customer,
     * or fraud rules that matched (`hold`).
     */
    heldForReview: p.boolean().default(false),
    /** The fraud rules that held it and their evidence, and when it was released or rejected (fraud-rules.ts). */
    hold: p.json<HoldRecord>().nullable(),
    /** The payout that paid it (null for commissions marked paid before payouts existed). */
    payout: () => p.manyToOne(Payout).mapToPk().nullable().index(),
    createdAt: p.datetime(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type ICommission = InferEntity<typeof Commission>;
