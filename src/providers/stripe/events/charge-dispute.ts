/**
 * Disputes (chargebacks). https://docs.stripe.com/api/disputes/object and
 * https://docs.stripe.com/disputes/how-disputes-work
 *
 * - `charge.dispute.funds_withdrawn`: the disputed amount left the merchant's balance. It is
 *   applied like a refund of that amount with reason `chargeback`, keyed by the dispute id (so a
 *   redelivery applies once).
 * - `charge.dispute.funds_reinstated`, and `charge.dispute.closed` with status `won`: the merchant
 *   won. The reversal is not undone; the advertiser is asked to review the commission, once per
 *   dispute whichever of the two events arrives (core review-won-dispute.ts).
 * A lost dispute changes nothing more: its funds were already withdrawn. Inquiries
 * (`warning_*` statuses) never withdraw funds.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerChargeback, providerDisputeWon } from '../../provider-jobs.ts';
import { readId } from '../../read-payload.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

export const chargeDisputeFundsWithdrawn: EventHandler = (dispute, ctx) => {
  const disputeId = readId(dispute.id);
  if (!disputeId) return ignore('missing_dispute_id');
  // Disputes name the PaymentIntent (null only for charges made without one, never recorded here).
  const transactionId = readId(dispute.payment_intent);
  if (!transactionId) return ignore('missing_payment_intent');
  const cents = readStripeAmount(dispute.amount, dispute.currency);
  if (cents === 'inexact') return ignore('unsupported_minor_units');
  if (cents === null || cents <= 0) return ignore('missing_amount');
  return emit(
    providerChargeback(ctx, {
      transactionId,
      disputeId,
      cents,
      saleLookup: { provider: 'stripe', paymentIntentId: transactionId },
    }),
  );
};

export const chargeDisputeWon: EventHandler = (dispute, ctx) => {
  // `charge.dispute.closed` also reports lost and inquiry outcomes; only `won` gives money back.
  if (dispute.status !== undefined && dispute.status !== 'won') return ignore('dispute_not_won');
  const disputeId = readId(dispute.id);
  if (!disputeId) return ignore('missing_dispute_id');
  const transactionId = readId(dispute.payment_intent);
  if (!transactionId) return ignore('missing_payment_intent');
  return emit(providerDisputeWon(ctx, { transactionId, chargebackId: disputeId, decisionId: disputeId }));
};
