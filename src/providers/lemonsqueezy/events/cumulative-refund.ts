import type { RefundJob } from '../../../core/jobs/refund-job.ts';
import type { EventContext } from '../../adapter.ts';
import { providerRefund } from '../../provider-jobs.ts';
import { readInteger } from '../../read-payload.ts';

/**
 * Lemon Squeezy reports `refunded_amount`, the running total refunded on the order or invoice,
 * never the amount of this refund, and no refund id. So the job carries the total
 * (`cumulative`) and no refund id: the core applies only the increase over what it has already
 * applied, under the sale's row lock, and derives its own refund key.
 *
 * Older payloads have no `refunded_amount`, only `refunded` ("fully refunded") and `status`. Then
 * `refunded: true` is a full refund: the total is the order's or invoice's `total` (what the sale
 * was recorded from), unless `status` says `partial_refund`, whose amount such a payload does not
 * give (nothing is applied: `missing_amount`).
 */
export function createCumulativeRefund(
  transactionId: string,
  attributes: Record<string, unknown>,
  ctx: EventContext,
): RefundJob | null {
  const totalCents = readInteger(readRefundedTotal(attributes));
  if (totalCents === null || totalCents <= 0) return null;
  return providerRefund(ctx, {
    transactionId,
    amount: { type: 'cumulative', totalCents },
    refundId: null,
    refundReason: null,
  });
}

function readRefundedTotal(attributes: Record<string, unknown>): unknown {
  if (attributes.refunded_amount !== undefined && attributes.refunded_amount !== null)
    return attributes.refunded_amount;
  if (attributes.refunded === true && attributes.status !== 'partial_refund') return attributes.total;
  return null;
}
