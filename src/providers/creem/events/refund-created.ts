/**
 * `refund.created`: one refund of a transaction, its own amount.
 * https://docs.creem.io/learn/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerRefund } from '../../provider-jobs.ts';
import { readId, readInteger, readString } from '../../read-payload.ts';

export const refundCreated: EventHandler = (refund, ctx) => {
  if (refund.status !== undefined && refund.status !== 'succeeded') return ignore('refund_not_succeeded');
  const transactionId = readId(refund.transaction);
  if (!transactionId) return ignore('missing_transaction_id');
  const cents = readInteger(refund.refund_amount);
  if (cents === null || cents <= 0) return ignore('missing_amount');

  return emit(
    providerRefund(ctx, {
      transactionId,
      amount: { type: 'per_refund', cents },
      refundId: readId(refund.id),
      refundReason: readString(refund.reason),
    }),
  );
};
