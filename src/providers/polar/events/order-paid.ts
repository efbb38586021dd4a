/**
 * `order.paid`: a paid order, one-off or subscription (first payment, renewal or upgrade).
 * https://polar.sh/docs/api-reference/webhooks/order.paid
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, readDiscountCodes, readId, readInteger, readString } from '../../read-payload.ts';
import { computeSubscriptionInterval } from '../../subscription-interval.ts';

/** `billing_reason` values that are later charges of an existing subscription. */
const RECURRING_REASONS = new Set(['subscription_cycle', 'subscription_update']);

export const orderPaid: EventHandler = (order, ctx) => {
  if (order.status !== undefined && order.status !== 'paid') return ignore('not_paid');
  const orderId = readId(order.id);
  if (!orderId) return ignore('missing_transaction_id');
  // Checkout metadata is copied onto the order and onto the subscription; renewal orders carry
  // the subscription, so its metadata is read too.
  const subscription = asRecord(order.subscription);
  // `total_amount` = `net_amount` (after discounts) + `tax_amount`, like the other providers' totals.
  const basics = readPaymentBasics(
    readInteger(order.total_amount),
    order.currency,
    [order.metadata, subscription?.metadata],
    ctx.programId,
    // Polar's amounts are "in cents": two-decimal currencies only.
    'cents',
  );
  if (!basics.ok) return basics.outcome;
  const subscriptionId = readId(order.subscription_id) ?? readId(subscription?.id);

  return emit(
    providerSale(ctx, basics, {
      transactionId: orderId,
      providerPaymentId: orderId,
      taxCents: readInteger(order.tax_amount),
      saleType: subscriptionId ? 'subscription' : 'payment',
      isRecurring: subscriptionId !== null && RECURRING_REASONS.has(readString(order.billing_reason) ?? ''),
      subscriptionId,
      subscriptionInterval: subscription
        ? computeSubscriptionInterval(subscription.recurring_interval, subscription.recurring_interval_count)
        : null,
      productId: readId(order.product_id),
      // `discount.code` is null for a discount applied by link or API: its id is read too.
      couponCodes: readDiscountCodes(order.discount_id, order.discount),
    }),
  );
};
