/**
 * `order.refunded`: the order after a refund, carrying the running totals refunded so far
 * (`refunded_amount`, tax excluded, and `refunded_tax_amount`).
 * https://polar.sh/docs/api-reference/webhooks/order.refunded
 *
 * Applied as a cumulative total (what the order's refunds add up to, tax included like the sale's
 * `total_amount`), keyed by that total: a redelivery applies nothing. A merchant who also enabled
 * `refund.*` gets each refund once whichever event arrives first (the refund plan applies a single
 * refund only beyond the running total already applied, core refund-plan.ts).
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { readId, readInteger } from '../../read-payload.ts';

export const orderRefunded: EventHandler = (order, ctx) => {
  if (order.status !== undefined && order.status !== 'refunded' && order.status !== 'partially_refunded')
    return ignore('refund_not_succeeded');
  const orderId = readId(order.id);
  if (!orderId) return ignore('missing_transaction_id');
  const refunded = readInteger(order.refunded_amount);
  const tax = readInteger(order.refunded_tax_amount) ?? 0;
  if (refunded === null || refunded + tax <= 0) return ignore('missing_amount');
  return emit(
    providerRefund(ctx, {
      transactionId: orderId,
      amount: { type: 'cumulative', totalCents: refunded + tax },
      refundId: null,
      refundReason: null,
    }),
  );
};
