import {
  creemCheckout,
  creemEvent,
  creemRefund,
  creemSubscription,
  signCreem,
} from '../../providers/fixtures/creem.ts';
import { metadataOf, unique, type ProviderKit } from './kit.ts';

/** Creem: sales keyed by transaction id; test mode is the payload's `mode`. */
export const creemKit: ProviderKit = {
  provider: 'creem',
  secret: 'whsec_creem_e2e_secret_0123456789',
  testSecret: null,
  rotatedSecret: 'whsec_creem_e2e_secret_0123456789-rotated',
  sign(body, _at, secret = creemKit.secret) {
    return { 'creem-signature': signCreem(body, secret) };
  },
  signExpired: null,
  payment({ ref, amountCents, keys, test = false }) {
    const checkout = creemCheckout(
      { id: `ch_${ref}`, metadata: metadataOf(keys) },
      {
        id: `ord_${ref}`,
        transaction: `tran_${ref}`,
        amount: amountCents,
        sub_total: amountCents,
        amount_due: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
      },
      test ? 'test' : 'prod',
    );
    return { event: creemEvent('checkout.completed', checkout, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  subscriptionStart({ ref, subscriptionId, amountCents, keys }) {
    const checkout = creemCheckout(
      {
        id: `ch_${ref}`,
        metadata: metadataOf(keys),
        subscription: { id: subscriptionId, object: 'subscription', metadata: metadataOf(keys) },
      },
      {
        id: `ord_${ref}`,
        transaction: `tran_${ref}`,
        amount: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
        type: 'recurring',
      },
    );
    return { event: creemEvent('checkout.completed', checkout, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const startedAt = Date.parse('2026-02-28T07:55:24.184Z');
    const subscription = creemSubscription(
      { id: subscriptionId, metadata: keys ? metadataOf(keys) : {}, created_at: new Date(startedAt).toISOString() },
      {
        id: `tran_${ref}`,
        amount: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
        subscription: subscriptionId,
        period_start: startedAt + 31 * 86_400_000,
      },
    );
    return { event: creemEvent('subscription.paid', subscription, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  refund({ ref, refundId, amountCents, test = false }) {
    return creemEvent(
      'refund.created',
      creemRefund(
        { id: refundId, refund_amount: amountCents },
        { id: `tran_${ref}`, order: `ord_${ref}` },
        test ? 'test' : 'prod',
      ),
      `evt_${unique()}`,
    );
  },
  unhandled() {
    return creemEvent(
      'subscription.canceled',
      { id: `sub_${unique()}`, object: 'subscription', status: 'canceled', mode: 'prod' },
      `evt_${unique()}`,
    );
  },
};
