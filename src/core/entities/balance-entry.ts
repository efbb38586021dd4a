import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';

/**
 * `commission_credit` (+), `refund_deduction` (−), `payout` (−, the amount paid out),
 * `payout_failed` (+, a failed payout's amount given back).
 */
export type BalanceEntryKind = 'commission_credit' | 'refund_deduction' | 'payout' | 'payout_failed';

/** Append-only ledger behind `PartnerBalance`: every change with its cause. */
export const BalanceEntry = defineEntity({
  name: 'BalanceEntry',
  // A partner's sums per currency and kind (the statement) from the index alone.
  indexes: [
    { properties: ['partner', 'currency', 'kind'], include: ['deltaCents'] },
    // A commission's or a payout's postings (ledger verification, statements); each column is set
    // on some kinds only, so the rows without it stay out of its index.
    { name: 'balance_entry_commission_id_index', properties: ['commissionId'], where: 'commission_id is not null' },
    { name: 'balance_entry_payout_id_index', properties: ['payoutId'], where: 'payout_id is not null' },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    partner: () => p.manyToOne(Partner).mapToPk().index(),
    currency: p.string().length(3),
    /** Signed change, minor units. */
    deltaCents: p.bigint('number'),
    kind: p.string().$type<BalanceEntryKind>(),
    commissionId: p.integer().nullable(),
    refundId: p.integer().nullable(),
    payoutId: p.integer().nullable(),
    createdAt: p.datetime(),
  },
});
export type IBalanceEntry = InferEntity<typeof BalanceEntry>;
