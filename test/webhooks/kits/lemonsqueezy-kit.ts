import {
  lemonSqueezyEvent,
  lemonSqueezyInvoice,
  lemonSqueezyOrder,
  signLemonSqueezy,
} from '../../providers/fixtures/lemonsqueezy.ts';
import { metadataOf, unique, type Json, type ProviderKit, type TrackerKeys } from './kit.ts';

/** Lemon Squeezy ids are integers; `ref` is hashed into one so the same ref gives the same id. */
function lemonSqueezyId(ref: string): string {
  let n = 0;
  for (const c of ref) n = (n * 31 + c.charCodeAt(0)) % 1_000_000_007;
  return String(n + 1);
}

function lemonSqueezyMeta(keys: TrackerKeys, test: boolean): Json {
  return { test_mode: test, custom_data: keys ? metadataOf(keys) : undefined };
}

export const lemonSqueezyKit: ProviderKit = {
  provider: 'lemonsqueezy',
  secret: 'ls_e2e_test_signing_secret',
  testSecret: null,
  rotatedSecret: 'ls_e2e_test_signing_secret-rotated',
  sign(body, _at, secret = lemonSqueezyKit.secret) {
    return { 'x-signature': signLemonSqueezy(body, secret) };
  },
  signExpired: null,
  payment({ ref, amountCents, keys, test = false }) {
    const id = lemonSqueezyId(ref);
    const order = lemonSqueezyOrder(
      { total: amountCents, subtotal: amountCents, tax: 0, currency: 'USD', test_mode: test },
      id,
    );
    return {
      event: lemonSqueezyEvent('order_created', order, lemonSqueezyMeta(keys, test)),
      transactionId: `ls-order-${id}`,
    };
  },
  // Lemon Squeezy records a subscription's first payment from its order (order-created.ts).
  subscriptionStart({ ref, amountCents, keys }) {
    return lemonSqueezyKit.payment({ ref, amountCents, keys });
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const id = lemonSqueezyId(ref);
    const invoice = lemonSqueezyInvoice(
      {
        subscription_id: Number(lemonSqueezyId(subscriptionId)),
        total: amountCents,
        subtotal: amountCents,
        tax: 0,
        billing_reason: 'renewal',
      },
      id,
    );
    return {
      event: lemonSqueezyEvent('subscription_payment_success', invoice, lemonSqueezyMeta(keys, false)),
      transactionId: `ls-invoice-${id}`,
    };
  },
  refund({ ref, saleAmountCents, totalCents, test = false }) {
    const order = lemonSqueezyOrder(
      {
        total: saleAmountCents,
        subtotal: saleAmountCents,
        tax: 0,
        currency: 'USD',
        test_mode: test,
        refunded_amount: totalCents,
        refunded: true,
        status: totalCents >= saleAmountCents ? 'refunded' : 'partial_refund',
        refunded_at: '2026-03-02T10:00:00.000000Z',
      },
      lemonSqueezyId(ref),
    );
    return lemonSqueezyEvent('order_refunded', order, { test_mode: test });
  },
  unhandled() {
    return lemonSqueezyEvent('license_key_created', {
      type: 'license-keys',
      id: lemonSqueezyId(unique()),
      attributes: { status: 'active', test_mode: false },
    });
  },
};
