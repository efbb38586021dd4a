import {
  monthlyItem,
  paddleAdjustment,
  paddleEvent,
  paddleTransaction,
  signPaddle,
} from '../../providers/fixtures/paddle.ts';
import {
  metadataOf,
  seconds,
  unique,
  type Json,
  type PaymentEvent,
  type ProviderKit,
  type SubscriptionInput,
} from './kit.ts';

export const paddleKit: ProviderKit = {
  provider: 'paddle',
  secret: 'pdl_ntfset_01e2etest_s3cr3tKeyForTests',
  testSecret: null,
  rotatedSecret: 'pdl_ntfset_01e2etest_s3cr3tKeyForTests-rotated',
  sign(body, at, secret = paddleKit.secret) {
    return { 'paddle-signature': signPaddle(body, { ts: seconds(at), secret }) };
  },
  signExpired(body, at) {
    return { 'paddle-signature': signPaddle(body, { ts: seconds(at) - 301, secret: paddleKit.secret }) };
  },
  payment({ ref, amountCents, keys, test = false }) {
    const customData = { ...metadataOf(keys), ...(test ? { test_mode: true } : {}) };
    return {
      event: paddleEvent('transaction.completed', paddleTransactionOf(ref, amountCents, { custom_data: customData }), {
        event_id: `evt_${unique()}`,
      }),
      transactionId: `txn_${ref}`,
    };
  },
  subscriptionStart: (input) => paddleSubscription(input, 'web'),
  renewal: (input) => paddleSubscription(input, 'subscription_recurring'),
  refund({ ref, refundId, amountCents }) {
    const cents = String(amountCents);
    const adjustment = paddleAdjustment({
      id: refundId,
      transaction_id: `txn_${ref}`,
      items: [{ id: `adjitm_${refundId}`, item_id: `txnitm_${ref}`, type: 'partial', amount: cents }],
      totals: { subtotal: cents, tax: '0', total: cents, fee: '0', earnings: cents, currency_code: 'USD' },
    });
    return paddleEvent('adjustment.updated', adjustment, { event_id: `evt_${unique()}` });
  },
  unhandled() {
    return paddleEvent(
      'customer.created',
      { id: `ctm_${unique()}`, email: 'buyer@example.com', status: 'active' },
      { event_id: `evt_${unique()}` },
    );
  },
};

function paddleTransactionOf(ref: string, amountCents: number, overrides: Json): Json {
  const total = String(amountCents);
  return paddleTransaction({
    id: `txn_${ref}`,
    details: {
      totals: {
        subtotal: total,
        tax: '0',
        discount: '0',
        total,
        grand_total: total,
        fee: '0',
        earnings: total,
        credit: '0',
        balance: '0',
        currency_code: 'USD',
      },
    },
    ...overrides,
  });
}

function paddleSubscription(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  origin: string,
): PaymentEvent {
  // Paddle copies custom_data onto renewals; `null` here proves attribution by subscription alone.
  const transaction = paddleTransactionOf(ref, amountCents, {
    subscription_id: subscriptionId,
    origin,
    items: [monthlyItem()],
    custom_data: keys ? metadataOf(keys) : null,
  });
  return {
    event: paddleEvent('transaction.completed', transaction, { event_id: `evt_${unique()}` }),
    transactionId: `txn_${ref}`,
  };
}
