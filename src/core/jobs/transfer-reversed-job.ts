import { z } from 'zod';

/**
 * A Stripe Connect transfer that paid a payout was reversed (Stripe `transfer.reversed`): the money
 * went back to the merchant, so the payout fails and the partner's balance gets its amount back
 * (settle-payouts.ts). Only providers emit it (origin `provider`).
 */
export const transferReversedJobSchema = z.object({
  kind: z.literal('transfer_reversed'),
  origin: z.literal('provider'),
  programId: z.number().int().positive(),
  /** The transfer's id (`tr_...`): the transaction this job is about. */
  transactionId: z.string().min(1),
  /** The transfer's amount and how much of it is reversed so far (minor units). */
  amountCents: z.number().int().nonnegative(),
  amountReversedCents: z.number().int().nonnegative(),
  /** Stripe test mode; the payout is found by its transfer either way. */
  test: z.boolean(),
  receivedAt: z.string(),
});
export type TransferReversedJob = z.infer<typeof transferReversedJobSchema>;

/** The one place a transfer-reversed job is written out. */
export function buildTransferReversedJob(input: Omit<TransferReversedJob, 'kind' | 'origin'>): TransferReversedJob {
  return {
    kind: 'transfer_reversed',
    origin: 'provider',
    programId: input.programId,
    transactionId: input.transactionId,
    amountCents: input.amountCents,
    amountReversedCents: input.amountReversedCents,
    test: input.test,
    receivedAt: input.receivedAt,
  };
}
