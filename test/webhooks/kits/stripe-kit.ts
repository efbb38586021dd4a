import {
  checkoutSession,
  legacyInvoice,
  signStripe,
  stripeEvent,
  stripeRefund,
} from '../../providers/fixtures/stripe.ts';
import { metadataOf, seconds, unique, type PaymentEvent, type ProviderKit, type SubscriptionInput } from './kit.ts';

export const stripeKit: ProviderKit = {
  provider: 'stripe',
  secret: 'whsec_e2e_test_secret_0123456789',
  testSecret: null,
  rotatedSecret: 'whsec_e2e_test_secret_0123456789-rotated',
  sign(body, at, secret = stripeKit.secret) {
    return { 'stripe-signature': signStripe(body, { timestamp: seconds(at), secret }) };
  },
  signExpired(body, at) {
    return { 'stripe-signature': signStripe(body, { timestamp: seconds(at) - 301, secret: stripeKit.secret }) };
  },
  payment({ ref, amountCents, keys, test = false }) {
    const session = checkoutSession({
      id: `cs_${ref}`,
      amount_subtotal: amountCents,
      amount_total: amountCents,
      payment_intent: `pi_${ref}`,
      metadata: metadataOf(keys),
      livemode: !test,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    });
    return {
      event: stripeEvent('checkout.session.completed', session, { id: `evt_${unique()}`, livemode: !test }),
      transactionId: `pi_${ref}`,
    };
  },
  subscriptionStart: (input) => stripeInvoice(input, 'subscription_create'),
  renewal: (input) => stripeInvoice(input, 'subscription_cycle'),
  refund({ ref, refundId, amountCents, test = false }) {
    const refund = stripeRefund({
      id: refundId,
      payment_intent: `pi_${ref}`,
      charge: `ch_${ref}`,
      amount: amountCents,
    });
    return stripeEvent('refund.updated', refund, { id: `evt_${unique()}`, livemode: !test });
  },
  unhandled() {
    return stripeEvent(
      'customer.created',
      { id: `cus_${unique()}`, object: 'customer', livemode: true },
      { id: `evt_${unique()}` },
    );
  },
};

/** Pre-basil invoice: it names its PaymentIntent, so its refunds find the sale. */
function stripeInvoice(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  billingReason: string,
): PaymentEvent {
  const invoice = legacyInvoice({
    id: `in_${ref}`,
    payment_intent: `pi_${ref}`,
    charge: `ch_${ref}`,
    subscription: subscriptionId,
    billing_reason: billingReason,
    amount_due: amountCents,
    amount_paid: amountCents,
    total: amountCents,
    subscription_details: { metadata: metadataOf(keys) },
  });
  return { event: stripeEvent('invoice.paid', invoice, { id: `evt_${unique()}` }), transactionId: `pi_${ref}` };
}
