/**
 * `refund.succeeded`: one refund of a payment, its own amount (`is_partial` says whether it
 * leaves part of the payment).
 * https://docs.dodopayments.com/developer-resources/webhooks/intents/refund
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { readId, readInteger, readString } from '../../read-payload.ts';

export const refundSucceeded: EventHandler = (refund, ctx) => {
  if (refund.status !== undefined && refund.status !== 'succeeded') return ignore('refund_not_succeeded');
  const paymentId = readId(refund.payment_id);
  if (!paymentId) return ignore('missing_transaction_id');
  const cents = readInteger(refund.amount);
  // A full refund may omit its amount: the rest of the sale (`cents: null`) is refunded.
  if (cents !== null && cents <= 0) return ignore('missing_amount');
  if (cents === null && refund.is_partial !== false) return ignore('missing_amount');

  return emit(
    providerRefund(ctx, {
      transactionId: paymentId,
      amount: { type: 'per_refund', cents },
      refundId: readId(refund.refund_id),
      refundReason: readString(refund.reason),
    }),
  );
};
