import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Sale } from './sale.ts';
import { Commission } from './commission.ts';

/** Ledger of applied refunds: the idempotency record for `refund_id` and same-amount retries. */
export const Refund = defineEntity({
  name: 'Refund',
  uniques: [{ properties: ['sale', 'refundId'] }],
  // The program's refunds (status count and latest, lists, exports by time).
  indexes: [{ properties: ['program', 'createdAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    sale: () => p.manyToOne(Sale).mapToPk().index(),
    commission: () => p.manyToOne(Commission).mapToPk().nullable(),
    refundId: p.string().nullable(),
    /** Amount as requested (`null` = the rest of the sale). */
    requestedCents: p.bigint('number').nullable(),
    /** Amount actually added to the sale's refunded total (after the cap). */
    appliedCents: p.bigint('number'),
    /** Commission amount reversed by this refund. */
    deductionCents: p.bigint('number'),
    /** Part of the deduction taken from the partner balance (credited commissions only). */
    balanceDeductionCents: p.bigint('number').default(0),
    reason: p.text().nullable(),
    source: p.string(),
    createdAt: p.datetime(),
  },
});
export type IRefund = InferEntity<typeof Refund>;
