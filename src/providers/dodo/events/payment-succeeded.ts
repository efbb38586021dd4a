/**
 * `payment.succeeded`: a paid one-off purchase or subscription charge.
 * https://docs.dodopayments.com/developer-resources/webhooks/intents/payment
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { each, readDiscountCodes, readId, readInteger } from '../../read-payload.ts';

export const paymentSucceeded: EventHandler = (payment, ctx) => {
  if (payment.status !== undefined && payment.status !== null && payment.status !== 'succeeded')
    return ignore('not_paid');
  const paymentId = readId(payment.payment_id);
  if (!paymentId) return ignore('missing_transaction_id');
  // Dodo copies checkout and subscription metadata onto every payment. `total_amount` includes
  // `tax`, like the other providers' totals.
  const basics = readPaymentBasics(
    readInteger(payment.total_amount),
    payment.currency,
    [payment.metadata],
    ctx.programId,
  );
  if (!basics.ok) return basics.outcome;
  const subscriptionId = readId(payment.subscription_id);
  const cart = Array.isArray(payment.product_cart) ? payment.product_cart : [];

  return emit(
    providerSale(ctx, basics, {
      transactionId: paymentId,
      providerPaymentId: paymentId,
      taxCents: readInteger(payment.tax),
      saleType: subscriptionId ? 'subscription' : 'payment',
      // A payment names no billing reason. The first charge of a subscription is paid through a
      // checkout session; renewals are charged without one.
      isRecurring: subscriptionId !== null && readId(payment.checkout_session_id) === null,
      subscriptionId,
      productId: cart.length === 1 ? readId((cart[0] as { product_id?: unknown } | null)?.product_id) : null,
      // `discounts[]` (code and `discount_id`, stacked discounts in order); older payloads name only
      // the deprecated `discount_id`.
      couponCodes: readDiscountCodes(
        ...each(payment.discounts, 'code'),
        ...each(payment.discounts, 'discount_id'),
        payment.discount_id,
      ),
    }),
  );
};
