/**
 * `subscription.paid`: a subscription payment; renewals are recorded here, under the payment's
 * transaction id, the first payment by `checkout.completed`.
 * https://docs.creem.io/learn/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, isoFromString, readDiscountCodes, readId, readInteger } from '../../read-payload.ts';
import { computeCreemInterval } from '../creem-interval.ts';

/** A payment for a period starting this long after the subscription began is a renewal. */
const FIRST_PERIOD_SLACK_MS = 86_400_000;

export const subscriptionPaid: EventHandler = (subscription, ctx) => {
  // The payment: `last_transaction` (deliveries), or only `last_transaction_id` (the documented
  // sample), the amount then being the product's price.
  const transaction = asRecord(subscription.last_transaction);
  const transactionId = readId(transaction?.id) ?? readId(subscription.last_transaction_id);
  if (!transactionId) return ignore('missing_transaction_id');
  if (transaction?.status !== undefined && transaction.status !== 'paid') return ignore('not_paid');
  // Creem names no billing reason: the first payment's period starts when the subscription does.
  const periodStart =
    readInteger(transaction?.period_start) ??
    parsedTime(subscription.current_period_start_date) ??
    parsedTime(subscription.last_transaction_date);
  const startedAt = parsedTime(subscription.created_at);
  if (periodStart === null || startedAt === null) return ignore('missing_period');
  // The first period's payment is the checkout's sale (`checkout.completed`, which a subscription
  // always starts with): recorded there once, whichever shape either event has.
  if (periodStart - startedAt <= FIRST_PERIOD_SLACK_MS) return ignore('first_payment_recorded_by_checkout');
  const product = asRecord(subscription.product);
  const basics = readPaymentBasics(
    readInteger(transaction?.amount_paid) ?? readInteger(transaction?.amount) ?? readInteger(product?.price),
    transaction?.currency ?? product?.currency,
    [subscription.metadata],
    ctx.programId,
    'cents',
  );
  if (!basics.ok) return basics.outcome;
  const subscriptionId = readId(subscription.id);

  return emit(
    providerSale(ctx, basics, {
      transactionId,
      providerPaymentId: transactionId,
      taxCents: readInteger(transaction?.tax_amount),
      saleType: 'subscription',
      isRecurring: subscriptionId !== null,
      subscriptionId,
      subscriptionInterval: computeCreemInterval(product?.billing_period),
      productId: readId(subscription.product),
      couponCodes: readDiscountCodes(subscription.discount),
    }),
  );
};

function parsedTime(value: unknown): number | null {
  const iso = isoFromString(value);
  return iso === null ? null : Date.parse(iso);
}
