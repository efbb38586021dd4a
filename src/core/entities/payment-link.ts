import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/**
 * A second id under which a provider names a recorded sale. Stripe invoices on API versions from
 * 2025-03-31 ("basil") no longer name their PaymentIntent, so their sales are recorded under the
 * invoice id while refunds and disputes name only the PaymentIntent; `invoice_payment.paid` says
 * which PaymentIntent paid which invoice. Links are stored whatever arrives first, so the sale may
 * not exist yet. Used by provider refunds only: API calls look sales up by `transaction_id` alone.
 */
export const PaymentLink = defineEntity({
  name: 'PaymentLink',
  uniques: [{ properties: ['program', 'alias'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    /** The id refunds name (a Stripe PaymentIntent `pi_...`). */
    alias: p.string(),
    /** The sale's `transaction_id` (a Stripe invoice `in_...`). */
    transactionId: p.string(),
    provider: p.string(),
    createdAt: p.datetime(),
  },
});
export type IPaymentLink = InferEntity<typeof PaymentLink>;
