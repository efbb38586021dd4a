import { dodoEvent, dodoPayment, dodoRefund, signDodo } from '../../providers/fixtures/dodo.ts';
import { metadataOf, seconds, unique, type ProviderKit } from './kit.ts';

/** Dodo: sales keyed by payment id; test-mode traffic is what its `test` secret signs. */
export const dodoKit: ProviderKit = {
  provider: 'dodo',
  secret: `whsec_${Buffer.from('dodo-e2e-live-secret-0123456789').toString('base64')}`,
  testSecret: `whsec_${Buffer.from('dodo-e2e-test-mode-secret-0123').toString('base64')}`,
  rotatedSecret: `whsec_${Buffer.from('dodo-e2e-rotated-secret-0123456').toString('base64')}`,
  sign(body, at, secret = dodoKit.secret) {
    // A secret that is not `whsec_<base64>` (the shared "another secret" case) signs as raw base64 of its text.
    const key = secret.startsWith('whsec_') ? secret : Buffer.from(secret).toString('base64');
    return signDodo(body, { timestamp: seconds(at), secret: key, id: `msg_${unique()}` });
  },
  signExpired(body, at) {
    return signDodo(body, { timestamp: seconds(at) - 301, secret: dodoKit.secret });
  },
  payment({ ref, amountCents, keys, test = false }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      settlement_amount: amountCents,
      metadata: metadataOf(keys),
    });
    return {
      event: dodoEvent('payment.succeeded', payment),
      transactionId: `pay_${ref}`,
      ...(test ? { secret: dodoKit.testSecret! } : {}),
    };
  },
  subscriptionStart({ ref, subscriptionId, amountCents, keys }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      subscription_id: subscriptionId,
      metadata: metadataOf(keys),
    });
    return { event: dodoEvent('payment.succeeded', payment), transactionId: `pay_${ref}` };
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      subscription_id: subscriptionId,
      checkout_session_id: null,
      metadata: metadataOf(keys),
    });
    return { event: dodoEvent('payment.succeeded', payment), transactionId: `pay_${ref}` };
  },
  refund({ ref, refundId, amountCents, saleAmountCents, totalCents }) {
    return dodoEvent(
      'refund.succeeded',
      dodoRefund({
        refund_id: refundId,
        payment_id: `pay_${ref}`,
        amount: amountCents,
        is_partial: totalCents < saleAmountCents,
      }),
    );
  },
  unhandled() {
    return dodoEvent('subscription.active', {
      payload_type: 'Subscription',
      subscription_id: `sub_${unique()}`,
      status: 'active',
      metadata: {},
    });
  },
};
