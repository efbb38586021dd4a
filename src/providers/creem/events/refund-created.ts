/**
 * `refund.created`: one refund of a transaction, its own amount.
 * https://docs.creem.io/learn/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { asRecord, readId, readInteger, readString } from '../../read-payload.ts';

export const refundCreated: EventHandler = (refund, ctx) => {
  if (refund.status !== undefined && refund.status !== 'succeeded') return ignore('refund_not_succeeded');
  const transactionId = readId(refund.transaction);
  if (!transactionId) return ignore('missing_transaction_id');
  const cents = readInteger(refund.refund_amount);
  if (cents === null || cents <= 0) return ignore('missing_amount');

  return emit(
    providerRefund(ctx, {
      saleAlias: transactionOrder(refund, transactionId),
      transactionId,
      amount: { type: 'per_refund', cents },
      refundId: readId(refund.id),
      refundReason: readString(refund.reason),
    }),
  );
};

/**
 * The order of the refunded (or disputed) transaction: a checkout whose order named no transaction
 * recorded its sale under the order id, which the refund then finds through it (`saleAlias`).
 */
export function transactionOrder(object: Record<string, unknown>, transactionId: string): string | null {
  const orderId = readId(asRecord(object.transaction)?.order) ?? readId(object.order);
  return orderId && orderId !== transactionId ? orderId : null;
}
