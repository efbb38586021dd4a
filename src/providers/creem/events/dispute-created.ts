/**
 * `dispute.created`: the customer's bank disputed a transaction and Creem, as merchant of record,
 * gave the money back. https://docs.creem.io/learn/webhooks/event-types lists the event; its object
 * is a dispute naming the transaction (and its order), the disputed `amount` and `currency`.
 * Applied like a refund of that amount with reason `chargeback`, keyed by the dispute id (so a
 * redelivery applies once), as Stripe's funds withdrawal is, found through its order like a refund; without a readable amount, the rest of
 * the sale. Creem publishes no dispute outcome event: nothing is ever re-credited.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerChargeback } from '../../provider-jobs.ts';
import { readId, readInteger } from '../../read-payload.ts';
import { transactionOrder } from './refund-created.ts';

export const disputeCreated: EventHandler = (dispute, ctx) => {
  const disputeId = readId(dispute.id);
  if (!disputeId) return ignore('missing_dispute_id');
  const transactionId = readId(dispute.transaction);
  if (!transactionId) return ignore('missing_transaction_id');
  const cents = readInteger(dispute.amount);
  if (cents !== null && cents <= 0) return ignore('missing_amount');
  return emit(
    providerChargeback(ctx, { transactionId, disputeId, cents, saleAlias: transactionOrder(dispute, transactionId) }),
  );
};
