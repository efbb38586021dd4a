/**
 * `adjustment.created` / `adjustment.updated`: approved refunds only.
 * https://developer.paddle.com/api-reference/adjustments/overview
 *
 * Credits, chargebacks and their reversals are other `action`s and are ignored: only refunds have
 * a defined reversal here, and a won chargeback (`chargeback_reverse`) could not be undone.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { at, readId, readMinorUnits, readString } from '../../read-payload.ts';

export const adjustment: EventHandler = (adjustmentObject, ctx) => {
  if (adjustmentObject.action !== 'refund') return ignore('not_a_refund');
  // Refunds wait in `pending_approval` until Paddle approves them; `rejected` never happened.
  if (adjustmentObject.status !== 'approved') return ignore('refund_not_approved');
  const transactionId = readId(adjustmentObject.transaction_id);
  if (!transactionId) return ignore('missing_transaction_id');
  // This adjustment's own amount (a partial refund names only its items), tax included like the sale.
  const cents = readMinorUnits(at(adjustmentObject, 'totals', 'total'));
  if (cents === null || cents <= 0) return ignore('missing_amount');

  // Adjustments carry no custom_data: only the connection can say sandbox (ctx.test).
  return emit(providerRefund(ctx, {
    transactionId,
    amount: { type: 'per_refund', cents },
    refundId: readId(adjustmentObject.id),
    refundReason: readString(adjustmentObject.reason),
  }));
};
