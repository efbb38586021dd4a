import { describe, expect, test } from 'vitest';
import { REDACTED, redactPersonalData } from '../../src/core/webhooks/redact-personal-data.ts';
import { createCreemAdapter } from '../../src/providers/creem/adapter.ts';
import { createDodoAdapter } from '../../src/providers/dodo/adapter.ts';
import { createLemonSqueezyAdapter } from '../../src/providers/lemonsqueezy/adapter.ts';
import { createPaddleAdapter } from '../../src/providers/paddle/adapter.ts';
import { createPolarAdapter } from '../../src/providers/polar/adapter.ts';
import { createStripeAdapter } from '../../src/providers/stripe/adapter.ts';
import { CTX } from '../providers/fixtures/clock.ts';
import { checkoutSession, stripeEvent } from '../providers/fixtures/stripe.ts';
import { paddleEvent, paddleTransaction } from '../providers/fixtures/paddle.ts';
import { lemonSqueezyEvent, lemonSqueezyOrder } from '../providers/fixtures/lemonsqueezy.ts';
import { polarEvent, polarOrder } from '../providers/fixtures/polar.ts';
import { dodoEvent, dodoPayment } from '../providers/fixtures/dodo.ts';
import { creemCheckout, creemEvent } from '../providers/fixtures/creem.ts';
import { published } from '../providers/fixtures/published.ts';

type Json = Record<string, unknown>;

const address = {
  line1: '12 Analytical Row',
  line2: 'Flat 3',
  city: 'London',
  postal_code: 'N1 9GU',
  state: null,
  country: 'GB',
};

/**
 * Each provider's event with the buyer data that provider puts in it (the fixtures' own, plus the
 * fields a real delivery carries), the strings that must go, and what must stay.
 */
const cases: Array<{
  provider: string;
  event: Json;
  personal: string[];
  kept: unknown[];
  normalise: (e: unknown) => { jobs: unknown[] };
}> = [
  {
    provider: 'stripe',
    event: stripeEvent(
      'checkout.session.completed',
      checkoutSession({
        customer_details: {
          address,
          email: 'ada@example.com',
          name: 'Ada Lovelace',
          phone: '+44 20 7946 0000',
          tax_exempt: 'none',
          tax_ids: [{ type: 'gb_vat', value: 'GB123456789' }],
        },
        customer_email: 'ada@example.com',
        shipping_details: { address, name: 'Ada Lovelace' },
      }),
    ),
    personal: ['ada@example.com', 'Ada Lovelace', 'Analytical Row', 'N1 9GU', '7946', 'GB123456789'],
    kept: ['cs_live_a1B2c3D4e5F6', 4900, 'clk_7Hq2x'],
    normalise: (e) => createStripeAdapter().normalise(e, CTX),
  },
  {
    provider: 'stripe (published charge)',
    event: stripeEvent(
      'charge.refunded',
      published('stripe', 'charge', {
        billing_details: { address, email: 'ada@example.com', name: 'Ada Lovelace', phone: '+44 20 7946 0000' },
        receipt_email: 'ada@example.com',
        receipt_url: 'https://pay.stripe.com/receipts/secret-receipt-path',
        payment_method_details: {
          type: 'card',
          card: { brand: 'visa', last4: '4242', fingerprint: 'Xt5EWLLDS7FJjR1c', exp_month: 8, exp_year: 2030 },
        },
      }),
    ),
    personal: [
      'ada@example.com',
      'Ada Lovelace',
      'Analytical Row',
      '7946',
      'secret-receipt-path',
      '4242',
      'Xt5EWLLDS7FJjR1c',
    ],
    kept: ['visa'],
    normalise: (e) => createStripeAdapter().normalise(e, CTX),
  },
  {
    provider: 'paddle',
    event: paddleEvent(
      'transaction.completed',
      paddleTransaction({
        payments: [
          {
            method_details: {
              type: 'card',
              card: {
                type: 'visa',
                last4: '4242',
                cardholder_name: 'Ada Lovelace',
                expiry_month: 1,
                expiry_year: 2030,
              },
            },
          },
        ],
        customer: { id: 'ctm_01hv6y1jedq4p1n0yqn5ba3ky4', name: 'Ada Lovelace', email: 'ada@example.com' },
        address: { id: 'add_01', first_line: '12 Analytical Row', postal_code: 'N1 9GU', country_code: 'GB' },
      }),
    ),
    personal: ['ada@example.com', 'Ada Lovelace', 'Analytical Row', 'N1 9GU', '4242'],
    kept: ['txn_01hv8wptq8987qeep44cyrewp9', 'ctm_01hv6y1jedq4p1n0yqn5ba3ky4', '4900', 'clk_7Hq2x'],
    normalise: (e) => createPaddleAdapter().normalise(e, CTX),
  },
  {
    provider: 'lemonsqueezy',
    event: lemonSqueezyEvent(
      'order_created',
      lemonSqueezyOrder({
        user_name: 'Ada Lovelace',
        user_email: 'ada@example.com',
        card_last_four: '4242',
        urls: { receipt: 'https://app.lemonsqueezy.com/my-orders/secret-receipt-path' },
      }),
    ),
    personal: ['ada@example.com', 'Ada Lovelace', '4242', 'secret-receipt-path'],
    kept: ['1001', 4900, 'user_1234'],
    normalise: (e) => createLemonSqueezyAdapter().normalise(e, CTX),
  },
  {
    provider: 'polar',
    event: polarEvent('order.paid', polarOrder({ billing_name: 'Ada Lovelace', billing_address: address })),
    personal: ['customer@example.com', 'John Doe', 'Ada Lovelace', 'Analytical Row'],
    kept: ['Pro'],
    normalise: (e) => createPolarAdapter().normalise(e, CTX),
  },
  {
    provider: 'dodo',
    event: dodoEvent('payment.succeeded', dodoPayment()),
    personal: ['buyer@example.com', 'Ada Buyer', 'Unter den Linden', '10117', 'Berlin'],
    kept: ['cus_4Kq8Zt1'],
    normalise: (e) => createDodoAdapter().normalise(e, CTX),
  },
  {
    provider: 'creem',
    event: creemEvent('checkout.completed', creemCheckout()),
    personal: ['test-customer@creem.io', 'Test Customer'],
    kept: ['Test Product'],
    normalise: (e) => createCreemAdapter().normalise(e, CTX),
  },
];

const strings = (value: unknown): unknown[] =>
  Array.isArray(value)
    ? value.flatMap(strings)
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(strings)
      : [value];

describe('redactPersonalData', () => {
  test.each(cases)(
    '$provider: no buyer name, email, phone, address or card data is left; ids, amounts and tracker keys stay',
    ({ event, personal, kept }) => {
      const before = JSON.stringify(event);
      for (const s of personal) expect(before, `fixture should carry ${s}`).toContain(s);
      const redacted = redactPersonalData(event);
      const after = JSON.stringify(redacted);
      for (const s of personal) expect(after).not.toContain(s);
      const values = strings(redacted);
      for (const k of kept) expect(values).toContain(k);
      expect(after).toContain(REDACTED);
      // The input is not changed.
      expect(JSON.stringify(event)).toBe(before);
    },
  );

  test.each(cases)(
    '$provider: the normalised jobs (what replay runs) carry none of it',
    ({ event, personal, normalise }) => {
      const jobs = JSON.stringify(normalise(event).jobs);
      for (const s of personal) expect(jobs).not.toContain(s);
    },
  );

  test('an email anywhere else is redacted; nulls, false and empty values stay; a product name stays', () => {
    expect(
      redactPersonalData({
        metadata: { note: 'call ada@example.com', tracker_customer_key: 'user_1' },
        customer: { id: 'cus_1', name: null, email: '', verified: false },
        items: [{ price: { name: 'Pro plan' } }],
        address: null,
      }),
    ).toEqual({
      metadata: { note: REDACTED, tracker_customer_key: 'user_1' },
      customer: { id: 'cus_1', name: null, email: '', verified: false },
      items: [{ price: { name: 'Pro plan' } }],
      address: null,
    });
  });
});
