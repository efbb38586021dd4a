/**
 * The checkout metadata helper returns exactly what each provider's checkout call takes, and what
 * it returns comes back through that provider's webhook as the same tracker keys.
 */
import { describe, expect, test } from 'vitest';
import { checkoutMetadata } from '../../tracker/src/client.ts';
import { createProviderAdapters } from '../../src/providers/registry.ts';
import { CTX, PROGRAM_ID } from '../providers/fixtures/clock.ts';
import { checkoutSession, stripeEvent } from '../providers/fixtures/stripe.ts';
import { paddleEvent, paddleTransaction } from '../providers/fixtures/paddle.ts';
import { lemonSqueezyEvent, lemonSqueezyOrder } from '../providers/fixtures/lemonsqueezy.ts';
import { polarEvent, polarOrder } from '../providers/fixtures/polar.ts';
import { dodoEvent, dodoPayment } from '../providers/fixtures/dodo.ts';
import { creemCheckout, creemEvent } from '../providers/fixtures/creem.ts';

const keys = { customerKey: 'user_77', clickId: 'clk_Ab3', visitorId: 'vis_Zz9', programId: PROGRAM_ID };
const metadata = {
  tracker_customer_key: 'user_77',
  tracker_click_id: 'clk_Ab3',
  tracker_visitor_id: 'vis_Zz9',
  program_id: String(PROGRAM_ID),
};

describe("checkoutMetadata: the object to spread into each provider's checkout call", () => {
  test.each([
    { provider: 'stripe (payment mode)', object: checkoutMetadata.stripe(keys), expected: { metadata } },
    {
      provider: 'stripe (subscription mode: renewal invoices carry subscription_data.metadata)',
      object: checkoutMetadata.stripe(keys, 'subscription'),
      expected: { metadata, subscription_data: { metadata } },
    },
    {
      provider: 'paddle (Paddle.js customData)',
      object: checkoutMetadata.paddle(keys),
      expected: { customData: metadata },
    },
    {
      provider: 'lemon squeezy (checkout_data.custom)',
      object: checkoutMetadata.lemonSqueezy(keys),
      expected: { checkout_data: { custom: metadata } },
    },
    { provider: 'polar', object: checkoutMetadata.polar(keys), expected: { metadata } },
    { provider: 'dodo', object: checkoutMetadata.dodo(keys), expected: { metadata } },
    { provider: 'creem', object: checkoutMetadata.creem(keys), expected: { metadata } },
  ])('$provider', ({ object, expected }) => {
    expect(object).toEqual(expected);
  });

  test.each([
    {
      label: 'only a click id (checkout before signup)',
      input: { clickId: 'clk_1' },
      expected: { tracker_click_id: 'clk_1' },
    },
    {
      label: 'only a customer key, program id as a number → string',
      input: { customerKey: 'u1', programId: 12 },
      expected: { tracker_customer_key: 'u1', program_id: '12' },
    },
    {
      label: 'empty and null values are left out; values trimmed',
      input: { customerKey: ' u2 ', clickId: '', visitorId: null },
      expected: { tracker_customer_key: 'u2' },
    },
  ])('$label', ({ input, expected }) => {
    expect(checkoutMetadata.polar(input).metadata).toEqual(expected);
  });

  test('neither a customer key nor a click id → TypeError, nothing to attribute by', () => {
    expect(() => checkoutMetadata.stripe({ visitorId: 'v', programId: 1 })).toThrow(TypeError);
  });

  test('stripe subscription mode: the two metadata objects are separate copies', () => {
    const o = checkoutMetadata.stripe(keys, 'subscription');
    expect(o.subscription_data?.metadata).not.toBe(o.metadata);
  });
});

describe("checkoutMetadata round trip: the keys come back through each provider's webhook", () => {
  const adapters = createProviderAdapters();
  const cases = [
    {
      provider: 'stripe',
      event: stripeEvent(
        'checkout.session.completed',
        checkoutSession({ metadata: checkoutMetadata.stripe(keys).metadata }),
      ),
    },
    // Paddle returns the checkout's customData as the transaction's custom_data.
    {
      provider: 'paddle',
      event: paddleEvent(
        'transaction.completed',
        paddleTransaction({ custom_data: checkoutMetadata.paddle(keys).customData }),
      ),
    },
    // Lemon Squeezy returns checkout_data.custom as meta.custom_data.
    {
      provider: 'lemonsqueezy',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder(), {
        custom_data: checkoutMetadata.lemonSqueezy(keys).checkout_data.custom,
      }),
    },
    {
      provider: 'polar',
      event: polarEvent('order.paid', polarOrder({ metadata: checkoutMetadata.polar(keys).metadata })),
    },
    {
      provider: 'dodo',
      event: dodoEvent('payment.succeeded', dodoPayment({ metadata: checkoutMetadata.dodo(keys).metadata })),
    },
    {
      provider: 'creem',
      event: creemEvent('checkout.completed', creemCheckout({ metadata: checkoutMetadata.creem(keys).metadata })),
    },
  ] as const;
  test.each(cases)('$provider', ({ provider, event }) => {
    const result = adapters[provider].normalise(event, CTX);
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject({
      kind: 'sale',
      customerKey: 'user_77',
      clickId: 'clk_Ab3',
      visitorId: 'vis_Zz9',
      programId: PROGRAM_ID,
    });
  });
});
