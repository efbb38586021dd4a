/**
 * `refund.created` / `refund.updated`: one refund of an order, its own amount.
 * https://polar.sh/docs/api-reference/webhooks/refund.updated
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { readId, readInteger, readString } from '../../read-payload.ts';

export const refundSucceeded: EventHandler = (refund, ctx) => {
  // `pending` refunds may still fail or be canceled.
  if (refund.status !== 'succeeded') return ignore('refund_not_succeeded');
  const orderId = readId(refund.order_id);
  if (!orderId) return ignore('missing_transaction_id');
  // `amount` excludes tax and `tax_amount` is refunded on top, as the sale's `total_amount`
  // includes tax: the two together are what this refund takes back from the sale.
  const amount = readInteger(refund.amount);
  const tax = readInteger(refund.tax_amount) ?? 0;
  if (amount === null || amount + tax <= 0) return ignore('missing_amount');

  return emit(
    providerRefund(ctx, {
      transactionId: orderId,
      amount: { type: 'per_refund', cents: amount + tax },
      refundId: readId(refund.id),
      refundReason: readString(refund.reason),
    }),
  );
};
