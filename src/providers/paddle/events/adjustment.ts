/**
 * `adjustment.created` / `adjustment.updated`. https://developer.paddle.com/api-reference/adjustments/overview
 *
 * By `action`:
 * - `refund`: applied once `approved` (refunds wait in `pending_approval`), keyed by the adjustment
 *   id, amount `totals.total` (this adjustment's own amount, tax included like the sale).
 * - `chargeback`: the customer's bank took the money back. Applied like a refund of its
 *   `totals.total` with reason `chargeback`, keyed by the adjustment id, as Stripe's
 *   `charge.dispute.funds_withdrawn` is. Paddle creates chargebacks already approved.
 * - `chargeback_reverse`: the merchant won the chargeback and got the money back. As with a won
 *   Stripe dispute the reversal is not undone: the advertiser is asked to review it (core
 *   review-won-dispute.ts). Paddle does not say which chargeback adjustment it reverses, so the
 *   review covers the sale's chargebacks, once per reversing adjustment.
 * - `chargeback_warning` (an early fraud warning; no money moved yet), its `_reverse`, `credit` and
 *   `credit_reverse` (balance credit, not money back): `not_a_refund`.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerDisputeWon, providerRefund } from '../../provider-jobs.ts';
import { at, readId, readMinorUnits, readString } from '../../read-payload.ts';

export const adjustment: EventHandler = (adjustmentObject, ctx) => {
  const action = adjustmentObject.action;
  if (action !== 'refund' && action !== 'chargeback' && action !== 'chargeback_reverse') return ignore('not_a_refund');
  // `rejected` never happened; `pending_approval` is applied by the later `adjustment.updated`.
  if (adjustmentObject.status !== 'approved') return ignore('refund_not_approved');
  const transactionId = readId(adjustmentObject.transaction_id);
  if (!transactionId) return ignore('missing_transaction_id');
  const adjustmentId = readId(adjustmentObject.id);
  // Adjustments carry no custom_data: only the connection can say sandbox (ctx.test).
  // A chargeback without its id could not be told apart from its redelivery.
  if (action !== 'refund' && !adjustmentId) return ignore('missing_dispute_id');
  if (action === 'chargeback_reverse' && adjustmentId) {
    return emit(providerDisputeWon(ctx, { transactionId, chargebackId: null, decisionId: adjustmentId }));
  }
  // This adjustment's own amount (a partial refund names only its items), tax included like the sale.
  const cents = readMinorUnits(at(adjustmentObject, 'totals', 'total'));
  if (cents === null || cents <= 0) return ignore('missing_amount');
  return emit(
    providerRefund(ctx, {
      transactionId,
      amount: { type: 'per_refund', cents },
      refundId: adjustmentId,
      // A chargeback's reason is `chargeback` (its free text would replace it, as a refund's does).
      refundReason: action === 'chargeback' ? null : readString(adjustmentObject.reason),
      reason: action === 'chargeback' ? 'chargeback' : 'refund',
    }),
  );
};
