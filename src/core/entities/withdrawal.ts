import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';

export type WithdrawalStatus = 'open' | 'paid' | 'cancelled';

/** A partner's payout request. Open withdrawals are reduced to fit a falling balance. */
export const Withdrawal = defineEntity({
  name: 'Withdrawal',
  properties: {
    id: p.integer().primary().autoincrement(),
    partner: () => p.manyToOne(Partner).mapToPk().index(),
    currency: p.string().length(3),
    amountCents: p.bigint('number'),
    /** Amount first requested, kept when the withdrawal is reduced to fit. */
    requestedCents: p.bigint('number'),
    status: p.string().$type<WithdrawalStatus>().default('open'),
    createdAt: p.datetime(),
    paidAt: p.datetime().nullable(),
  },
});
export type IWithdrawal = InferEntity<typeof Withdrawal>;
