/**
 * `refund.created` / `refund.updated`: one refund, its own amount.
 * https://docs.stripe.com/api/refunds/object
 *
 * The refund object is used rather than `charge.refunded`, whose `amount_refunded` is a running
 * total: sending it per event would count earlier refunds again (spec refund rule 5).
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { at, readId, readInteger, readString } from '../../read-payload.ts';

export const refund: EventHandler = (refundObject, ctx) => {
  // `pending` and `requires_action` refunds may still fail; `refund.updated` reports success.
  if (refundObject.status !== 'succeeded') return ignore('refund_not_succeeded');
  // Sales are recorded under their PaymentIntent id (../adapter.ts), the only sale id a refund names.
  const transactionId = readId(refundObject.payment_intent);
  if (!transactionId) return ignore('missing_payment_intent');
  const cents = readInteger(refundObject.amount);
  if (cents === null || cents <= 0) return ignore('missing_amount');

  return emit(providerRefund(ctx, {
    transactionId,
    amount: { type: 'per_refund', cents },
    refundId: readId(refundObject.id),
    // A merchant's own wording (refund metadata) beats Stripe's coded reason.
    refundReason: readString(at(refundObject, 'metadata', 'refund_reason')) ?? readString(refundObject.reason),
  }));
};
