/**
 * `transaction.completed`: a paid transaction, one-off or subscription.
 * https://developer.paddle.com/webhooks/transactions/transaction-completed
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, at, readDiscountCodes, readId, readString } from '../../read-payload.ts';
import { readPaddlePaidAmount } from './paid-amount.ts';
import { computeSubscriptionInterval } from '../../subscription-interval.ts';

export const transactionCompleted: EventHandler = (transaction, ctx) => {
  if (transaction.status !== undefined && transaction.status !== 'completed') return ignore('not_paid');
  const transactionId = readId(transaction.id);
  if (!transactionId) return ignore('missing_transaction_id');
  // Paddle money is a string of minor units (`"4900"`): `grand_total`, after discounts and
  // credit, with its tax (paid-amount.ts). Paddle copies a checkout's `custom_data` onto the
  // subscription and its renewal transactions.
  const customData = asRecord(transaction.custom_data);
  const paid = readPaddlePaidAmount(transaction);
  const basics = readPaymentBasics(paid.amountCents, transaction.currency_code, [customData], ctx.programId);
  if (!basics.ok) return basics.outcome;

  const subscriptionId = readId(transaction.subscription_id);
  // Origins: web/api (first purchase), subscription_recurring (renewal), subscription_update and
  // subscription_charge (later charges on the same subscription).
  const origin = readString(transaction.origin) ?? '';
  const items = Array.isArray(transaction.items) ? transaction.items : [];
  const onlyPrice = items.length === 1 ? asRecord(at(items[0], 'price')) : null;

  return emit(
    providerSale(ctx, basics, {
      // Sandbox and live payloads look alike: test comes from the connection or from the
      // merchant's own flag in custom_data.
      test: ctx.test || customData?.test_mode === true || customData?.livemode === false,
      transactionId,
      providerPaymentId: transactionId,
      taxCents: paid.taxCents,
      saleType: subscriptionId ? 'subscription' : 'payment',
      isRecurring: subscriptionId !== null && origin.startsWith('subscription_'),
      subscriptionId,
      subscriptionInterval: onlyPrice
        ? computeSubscriptionInterval(
            at(onlyPrice, 'billing_cycle', 'interval'),
            at(onlyPrice, 'billing_cycle', 'frequency'),
          )
        : null,
      productId: onlyPrice ? readId(onlyPrice.product_id) : null,
      // Notifications name the discount by id (`dsc_…`); an API transaction with
      // `include=discount` carries the discount itself, with its `code`.
      couponCodes: readDiscountCodes(transaction.discount_id, transaction.discount),
      providerCustomerId: readId(transaction.customer_id) ?? undefined,
    }),
  );
};
