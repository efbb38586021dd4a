/**
 * `checkout.completed`: a completed checkout and the order it paid, one-off or the first payment
 * of a subscription. https://docs.creem.io/learn/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, readDiscountCodes, readId, readInteger } from '../../read-payload.ts';
import { computeCreemInterval } from '../creem-interval.ts';

export const checkoutCompleted: EventHandler = (checkout, ctx) => {
  const order = asRecord(checkout.order);
  if (!order) return ignore('missing_order_id');
  if (order.status !== undefined && order.status !== 'paid') return ignore('not_paid');
  // Under the order's transaction when it names one (Creem's test-mode deliveries do), else the
  // order itself (the documented sample names none); refunds name both (refund-created.ts).
  const transactionId = readId(order.transaction) ?? readId(order.id);
  if (!transactionId) return ignore('missing_transaction_id');
  const subscription = asRecord(checkout.subscription);
  const basics = readPaymentBasics(
    readInteger(order.amount_paid) ?? readInteger(order.amount),
    order.currency,
    [checkout.metadata, subscription?.metadata],
    ctx.programId,
    // Creem's amounts are in cents: two-decimal currencies only.
    'cents',
  );
  if (!basics.ok) return basics.outcome;
  const subscriptionId = readId(checkout.subscription);

  return emit(
    providerSale(ctx, basics, {
      transactionId,
      providerPaymentId: readId(order.id) ?? transactionId,
      taxCents: readInteger(order.tax_amount),
      saleType: subscriptionId ? 'subscription' : 'payment',
      subscriptionId,
      subscriptionInterval: computeCreemInterval(asRecord(checkout.product)?.billing_period),
      productId: readId(checkout.product) ?? readId(order.product),
      // The order names its discount by id (`dis_…`); the checkout has no discount field.
      couponCodes: readDiscountCodes(order.discount, subscription?.discount),
    }),
  );
};
