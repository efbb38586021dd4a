import { z } from 'zod';
import { REFUND_REASONS } from '../shared/vocabulary.ts';

/**
 * How much a refund job refunds.
 * - `per_refund`: this refund's own amount (`null` = the rest of the sale). API and Stripe/Paddle.
 * - `cumulative`: the provider's running total refunded on the sale (Lemon Squeezy); the use-case
 *   applies only the increase over what is already applied, under the sale's row lock.
 */
export const refundAmountSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('per_refund'), cents: z.number().int().nullable() }),
  z.object({ type: z.literal('cumulative'), totalCents: z.number().int() }),
]);
export type RefundAmount = z.infer<typeof refundAmountSchema>;

/** A provider payment whose sale is asked for by its id (a Stripe PaymentIntent, `pi_...`). */
export const saleLookupSchema = z.object({ provider: z.enum(['stripe']), paymentIntentId: z.string().min(1) });
export type SaleLookup = z.infer<typeof saleLookupSchema>;

/** A refund to apply (API `POST /track/refund` or a provider refund event). */
export const refundJobSchema = z.object({
  kind: z.literal('refund'),
  /**
   * `provider`: providers do not order their deliveries, so a missing sale is a retryable
   * failure (retried with backoff) instead of `not_found`, and a test sale of the same
   * transaction answers as a test refund (Paddle adjustments carry no test flag of their own).
   */
  origin: z.enum(['api', 'provider']),
  programId: z.number().int().positive(),
  /** The sale's `transaction_id` (provider: its payment id). */
  transactionId: z.string(),
  amount: refundAmountSchema,
  /** Merchant's or provider's refund id; ignored when the amount is the whole rest. */
  refundId: z.string().nullable(),
  refundReason: z.string().nullable(),
  reason: z.enum(REFUND_REASONS).nullable(),
  /**
   * Another id the provider knows the sale by (Creem: the transaction's order, the sale's id when
   * its checkout named no transaction), tried when `transactionId` and its links find no sale.
   * Optional: jobs stored before it existed read as none.
   */
  saleAlias: z.string().nullable().default(null),
  /**
   * Where the sale a payment paid can be asked for when no sale or link is found (a Stripe
   * PaymentIntent paying a basil invoice; refund-sale-lookup.ts). Optional, as `saleAlias`.
   */
  saleLookup: saleLookupSchema.nullable().default(null),
  test: z.boolean(),
  receivedAt: z.string(),
});
export type RefundJob = z.infer<typeof refundJobSchema>;

type Required = 'origin' | 'programId' | 'transactionId' | 'amount' | 'test' | 'receivedAt';
export type RefundJobInput = Pick<RefundJob, Required> & Partial<Omit<RefundJob, Required | 'kind'>>;

/** The one place a refund job is written out, for every origin. */
export function buildRefundJob(input: RefundJobInput): RefundJob {
  return {
    kind: 'refund',
    origin: input.origin,
    programId: input.programId,
    transactionId: input.transactionId,
    amount: input.amount,
    refundId: input.refundId ?? null,
    refundReason: input.refundReason ?? null,
    reason: input.reason ?? null,
    saleAlias: input.saleAlias ?? null,
    saleLookup: input.saleLookup ?? null,
    test: input.test,
    receivedAt: input.receivedAt,
  };
}
