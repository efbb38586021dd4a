/**
 * `charge.refunded`: the only refund event API versions before 2024-10-28 send for card refunds.
 * https://docs.stripe.com/api/charges/object
 *
 * The charge's `amount_refunded` is a running total, so each refund of its `refunds` list becomes
 * its own refund job with the refund's id and amount: the refund id is the dedupe key, so a refund
 * seen here and again in `refund.created`/`refund.updated` (or in a later `charge.refunded`, whose
 * list repeats earlier refunds) applies once. Versions from 2022-11-15 leave `refunds` out of the
 * charge; then only the running total is known and it is applied as a running total.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { asRecord, at, readId } from '../../read-payload.ts';
import { readStripeRefund } from './refund.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

export const chargeRefunded: EventHandler = (charge, ctx) => {
  const chargePaymentIntent = readId(charge.payment_intent);
  const list = at(charge, 'refunds', 'data');
  if (!Array.isArray(list)) {
    // No list on this API version: the running total is all there is. The core applies only the
    // increase over what the sale already has refunded (RefundAmount `cumulative`).
    if (!chargePaymentIntent) return ignore('missing_payment_intent');
    const totalCents = readStripeAmount(charge.amount_refunded, charge.currency);
    if (totalCents === 'inexact') return ignore('unsupported_minor_units');
    if (totalCents === null || totalCents <= 0) return ignore('missing_amount');
    return emit(
      providerRefund(ctx, {
        transactionId: chargePaymentIntent,
        amount: { type: 'cumulative', totalCents },
        refundId: null,
        refundReason: null,
        saleLookup: { provider: 'stripe', paymentIntentId: chargePaymentIntent },
      }),
    );
  }
  const jobs = [];
  for (const item of list) {
    const refund = asRecord(item);
    if (!refund) continue;
    const read = readStripeRefund(refund, chargePaymentIntent, ctx);
    if (read.ok) jobs.push(read.job);
  }
  return jobs.length ? emit(...jobs) : ignore('no_succeeded_refund');
};
