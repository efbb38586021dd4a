/**
 * `refund.created` / `refund.updated` (and `charge.refund.updated` on older API versions): one
 * refund, its own amount. https://docs.stripe.com/api/refunds/object
 *
 * The refund object is used rather than the charge's `amount_refunded`, a running total: sending
 * it per event would count earlier refunds again (spec refund rule 5).
 */
import type { RefundJob } from '../../../core/jobs/refund-job.ts';
import type { EventContext, EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { at, readId, readString, type JsonObject } from '../../read-payload.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

export const refund: EventHandler = (refundObject, ctx) => {
  const read = readStripeRefund(refundObject, null, ctx);
  return read.ok ? emit(read.job) : ignore(read.reason);
};

/**
 * One Stripe refund object as a refund job. `paymentIntentFallback`: the charge's PaymentIntent,
 * for a refund listed inside a charge.
 */
export function readStripeRefund(
  refundObject: JsonObject,
  paymentIntentFallback: string | null,
  ctx: EventContext,
): { ok: true; job: RefundJob } | { ok: false; reason: string } {
  // `pending` and `requires_action` refunds may still fail; `refund.updated` reports success.
  if (refundObject.status !== 'succeeded') return { ok: false, reason: 'refund_not_succeeded' };
  // Sales are recorded under their PaymentIntent id (../adapter.ts), the only sale id a refund
  // names; a basil invoice's sale is found through its link (invoice-payment-paid.ts).
  const transactionId = readId(refundObject.payment_intent) ?? paymentIntentFallback;
  if (!transactionId) return { ok: false, reason: 'missing_payment_intent' };
  const cents = readStripeAmount(refundObject.amount, refundObject.currency);
  if (cents === 'inexact') return { ok: false, reason: 'unsupported_minor_units' };
  if (cents === null || cents <= 0) return { ok: false, reason: 'missing_amount' };
  return {
    ok: true,
    job: providerRefund(ctx, {
      transactionId,
      amount: { type: 'per_refund', cents },
      refundId: readId(refundObject.id),
      // A merchant's own wording (refund metadata) beats Stripe's coded reason.
      refundReason: readString(at(refundObject, 'metadata', 'refund_reason')) ?? readString(refundObject.reason),
      saleLookup: { provider: 'stripe', paymentIntentId: transactionId },
    }),
  };
}
