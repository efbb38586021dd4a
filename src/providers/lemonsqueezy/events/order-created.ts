/**
 * `order_created`: a paid order, one-off or the first payment of a subscription (Lemon Squeezy
 * always sends `order_created` alongside `subscription_created`).
 * https://docs.lemonsqueezy.com/api/orders/the-order-object
 *
 * The order names no subscription, so a first subscription payment is recorded as a `payment`
 * without `subscriptionId`; renewals carry the subscription (subscription-payment-success.ts).
 *
 * A discounted order (`discount_total` > 0) names neither the code nor the discount: when the
 * checkout carried no tracker metadata either, the sale says where to ask for it (the order's
 * discount redemptions, `couponLookup`; core asks only if nothing else attributes the sale).
 */
import type { EventHandler } from '../../adapter.ts';
import { ignore } from '../../provider-jobs.ts';
import { asRecord, at, readId, readInteger } from '../../read-payload.ts';
import { paidSale } from './paid-sale.ts';

export const orderCreated: EventHandler = (order, ctx) => {
  const attributes = asRecord(order.attributes);
  if (!attributes) return ignore('missing_attributes');
  // `pending` (e.g. bank transfer) and `failed` orders are also announced by `order_created`:
  // only `paid` ones are sales (paid-sale.ts).
  return paidSale(order, attributes, ctx, 'order', (orderId, { tracker }) => {
    const untracked = !tracker.clickId && !tracker.customerKey && !tracker.couponCode;
    const discounted = (readInteger(attributes.discount_total) ?? 0) > 0;
    return {
      productId: readId(at(attributes, 'first_order_item', 'product_id')),
      couponLookup: untracked && discounted ? { provider: 'lemonsqueezy', orderId } : null,
    };
  });
};
