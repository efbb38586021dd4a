import { polarEvent, polarOrder, polarRefund, signPolar } from '../../providers/fixtures/polar.ts';
import { metadataOf, seconds, unique, type PaymentEvent, type ProviderKit, type SubscriptionInput } from './kit.ts';

/** Polar: sales keyed by order id; sandbox traffic is what its `test` secret signs. */
export const polarKit: ProviderKit = {
  provider: 'polar',
  secret: 'polar_whs_e2e_live_secret_0123456789',
  testSecret: 'polar_whs_e2e_sandbox_secret_0123456789',
  rotatedSecret: 'polar_whs_e2e_live_secret_0123456789-rotated',
  sign(body, at, secret = polarKit.secret) {
    return signPolar(body, { timestamp: seconds(at), secret, id: `msg_${unique()}` });
  },
  signExpired(body, at) {
    return signPolar(body, { timestamp: seconds(at) - 301, secret: polarKit.secret });
  },
  payment({ ref, amountCents, keys, test = false }) {
    const order = polarOrder({
      id: `polar_ord_${ref}`,
      total_amount: amountCents,
      net_amount: amountCents,
      subtotal_amount: amountCents,
      discount_amount: 0,
      tax_amount: 0,
      metadata: metadataOf(keys),
    });
    return {
      event: polarEvent('order.paid', order),
      transactionId: `polar_ord_${ref}`,
      ...(test ? { secret: polarKit.testSecret! } : {}),
    };
  },
  subscriptionStart: (input) => polarSubscription(input, 'subscription_create'),
  renewal: (input) => polarSubscription(input, 'subscription_cycle'),
  refund({ ref, refundId, amountCents }) {
    return polarEvent(
      'refund.updated',
      polarRefund({ id: refundId, order_id: `polar_ord_${ref}`, amount: amountCents, tax_amount: 0 }),
    );
  },
  unhandled() {
    return polarEvent('customer.created', { id: `cus_${unique()}`, email: 'buyer@example.com', metadata: {} });
  },
};

function polarSubscription(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  billingReason: string,
): PaymentEvent {
  const order = polarOrder({
    id: `polar_ord_${ref}`,
    total_amount: amountCents,
    net_amount: amountCents,
    subtotal_amount: amountCents,
    discount_amount: 0,
    tax_amount: 0,
    billing_reason: billingReason,
    subscription_id: subscriptionId,
    metadata: metadataOf(keys),
    subscription: {
      id: subscriptionId,
      metadata: metadataOf(keys),
      recurring_interval: 'month',
      recurring_interval_count: 1,
      status: 'active',
    },
  });
  return { event: polarEvent('order.paid', order), transactionId: `polar_ord_${ref}` };
}
