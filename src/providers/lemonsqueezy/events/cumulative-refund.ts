import type { RefundJob } from '../../../core/jobs/refund-job.ts';
import type { EventContext } from '../../adapter.ts';
import { providerRefund } from '../../provider-jobs.ts';
import { readInteger } from '../../read-payload.ts';

/**
 * Lemon Squeezy reports `refunded_amount`, the running total refunded on the order or invoice,
 * never the amount of this refund, and no refund id. So the job carries the total
 * (`cumulative`) and no refund id: the core applies only the increase over what it has already
 * applied, under the sale's row lock, and derives its own refund key.
 */
export function createCumulativeRefund(transactionId: string, refundedAmount: unknown, ctx: EventContext): RefundJob | null {
  const totalCents = readInteger(refundedAmount);
  if (totalCents === null || totalCents <= 0) return null;
  return providerRefund(ctx, {
    transactionId,
    amount: { type: 'cumulative', totalCents },
    refundId: null,
    refundReason: null,
  });
}
