import { z } from 'zod';

/**
 * A chargeback was decided in the merchant's favour (a won dispute, a reversed chargeback). The
 * reversal it caused is not undone automatically: the advertiser is asked to review it. Only
 * providers emit it (origin `provider`).
 */
export const disputeWonJobSchema = z.object({
  kind: z.literal('dispute_won'),
  origin: z.literal('provider'),
  programId: z.number().int().positive(),
  /** The sale's `transaction_id` (or a linked alias). */
  transactionId: z.string(),
  /**
   * The refund id under which the chargeback was applied (Stripe `dp_...`); `null` when the
   * provider does not say which chargeback is reversed: any chargeback of the sale.
   */
  chargebackId: z.string().nullable(),
  /** Provider's own id of the decision; the review is requested once per `chargebackId ?? decisionId`. */
  decisionId: z.string(),
  test: z.boolean(),
  receivedAt: z.string(),
});
export type DisputeWonJob = z.infer<typeof disputeWonJobSchema>;

/** The one place a dispute-won job is written out. */
export function buildDisputeWonJob(input: Omit<DisputeWonJob, 'kind' | 'origin'>): DisputeWonJob {
  return {
    kind: 'dispute_won',
    origin: 'provider',
    programId: input.programId,
    transactionId: input.transactionId,
    chargebackId: input.chargebackId,
    decisionId: input.decisionId,
    test: input.test,
    receivedAt: input.receivedAt,
  };
}
