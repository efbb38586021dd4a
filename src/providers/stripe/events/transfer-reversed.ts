/**
 * `transfer.reversed` (https://docs.stripe.com/api/events/types#event_types-transfer.reversed):
 * the object is the Transfer (https://docs.stripe.com/api/transfers/object) with `amount` and
 * `amount_reversed` (cumulative). A payout run's transfer reversed in full fails its payout.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerTransferReversed } from '../../provider-jobs.ts';
import { readId } from '../../read-payload.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

export const transferReversed: EventHandler = (transfer, ctx) => {
  const transactionId = readId(transfer.id);
  if (!transactionId) return ignore('missing_transfer_id');
  const amountCents = readStripeAmount(transfer.amount, transfer.currency);
  const amountReversedCents = readStripeAmount(transfer.amount_reversed, transfer.currency);
  if (amountCents === 'inexact' || amountReversedCents === 'inexact') return ignore('unsupported_minor_units');
  if (amountCents === null || amountReversedCents === null) return ignore('missing_amount');
  return emit(providerTransferReversed(ctx, { transactionId, amountCents, amountReversedCents }));
};
