/**
 * `subscription.paid`: a subscription payment, the first one or a renewal; the payment is the
 * subscription's `last_transaction`. https://docs.creem.io/learn/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, isoFromString, readId, readInteger } from '../../read-payload.ts';
import { computeCreemInterval } from '../creem-interval.ts';

/** A payment for a period starting this long after the subscription began is a renewal. */
const FIRST_PERIOD_SLACK_MS = 86_400_000;

export const subscriptionPaid: EventHandler = (subscription, ctx) => {
  const transaction = asRecord(subscription.last_transaction);
  const transactionId = readId(transaction?.id) ?? readId(subscription.last_transaction_id);
  if (!transaction || !transactionId) return ignore('missing_transaction_id');
  if (transaction.status !== undefined && transaction.status !== 'paid') return ignore('not_paid');
  const basics = readPaymentBasics(
    readInteger(transaction.amount_paid) ?? readInteger(transaction.amount),
    transaction.currency,
    [subscription.metadata],
    ctx.programId,
  );
  if (!basics.ok) return basics.outcome;
  const subscriptionId = readId(subscription.id);

  // Creem names no billing reason: the first payment's period starts when the subscription does.
  const periodStart = readInteger(transaction.period_start);
  const startedAt = isoFromString(subscription.created_at);
  const isRenewal =
    periodStart !== null && startedAt !== null && periodStart - Date.parse(startedAt) > FIRST_PERIOD_SLACK_MS;
  const product = asRecord(subscription.product);

  return emit(
    providerSale(ctx, basics, {
      transactionId,
      providerPaymentId: transactionId,
      taxCents: readInteger(transaction.tax_amount),
      saleType: 'subscription',
      isRecurring: subscriptionId !== null && isRenewal,
      subscriptionId,
      subscriptionInterval: computeCreemInterval(product?.billing_period),
      productId: readId(subscription.product),
    }),
  );
};
