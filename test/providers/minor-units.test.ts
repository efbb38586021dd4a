/**
 * Each adapter's amounts in ISO 4217 minor units: read as they are where the provider writes the
 * currency's minor unit, converted where Stripe's differs from ISO's, refused
 * (`unsupported_minor_units`) where a provider that writes cents meets a currency without cents.
 */
import { describe, expect, test } from 'vitest';
import { createCreemAdapter } from '../../src/providers/creem/adapter.ts';
import { createDodoAdapter } from '../../src/providers/dodo/adapter.ts';
import { createPolarAdapter } from '../../src/providers/polar/adapter.ts';
import { CTX } from './fixtures/clock.ts';
import { creemCheckout, creemEvent } from './fixtures/creem.ts';
import { dodoDispute, dodoEvent, dodoPayment } from './fixtures/dodo.ts';
import { lemonSqueezyEvent, lemonSqueezyOrder } from './fixtures/lemonsqueezy.ts';
import { normaliseLemonSqueezy, normalisePaddle, normaliseStripe, transactionCompleted } from './fixtures/normalise.ts';
import { polarEvent, polarOrder } from './fixtures/polar.ts';
import { stripeEvent, stripeRefund } from './fixtures/stripe.ts';

const polar = (event: unknown) => createPolarAdapter().normalise(event, CTX);
const creem = (event: unknown) => createCreemAdapter().normalise(event, CTX);
const dodo = (event: unknown) => createDodoAdapter().normalise(event, CTX);

describe('providers that write cents: two-decimal currencies only', () => {
  test.each([
    ['polar GBP', () => polar(polarEvent('order.paid', polarOrder({ currency: 'gbp' }))), 'GBP'],
    ['creem GBP', () => creem(creemEvent('checkout.completed', creemCheckout({}, { currency: 'GBP' }))), 'GBP'],
    [
      'lemon squeezy GBP',
      () => normaliseLemonSqueezy(lemonSqueezyEvent('order_created', lemonSqueezyOrder({ currency: 'gbp' }))),
      'GBP',
    ],
  ])('%s: recorded as sent', (_label, run, currency) => {
    const r = run();
    expect(r.ignoredReason).toBeNull();
    expect(r.jobs[0]).toMatchObject({ kind: 'sale', currency });
  });

  test.each([
    ['polar JPY', () => polar(polarEvent('order.paid', polarOrder({ currency: 'jpy' })))],
    ['creem KWD', () => creem(creemEvent('checkout.completed', creemCheckout({}, { currency: 'KWD' })))],
    [
      'lemon squeezy JPY',
      () => normaliseLemonSqueezy(lemonSqueezyEvent('order_created', lemonSqueezyOrder({ currency: 'jpy' }))),
    ],
  ])('%s: refused, never recorded 100 or 10 times off', (_label, run) => {
    expect(run()).toMatchObject({ jobs: [], ignoredReason: 'unsupported_minor_units' });
  });
});

describe('providers that write the minor unit of every currency', () => {
  test('paddle JPY: whole yen as sent', () => {
    const r = normalisePaddle(transactionCompleted({ currency_code: 'JPY' }));
    expect(r.jobs[0]).toMatchObject({ kind: 'sale', currency: 'JPY' });
  });

  test('dodo KWD: fils as sent', () => {
    const r = dodo(dodoEvent('payment.succeeded', dodoPayment({ currency: 'KWD', total_amount: 12_345 })));
    expect(r.jobs[0]).toMatchObject({ kind: 'sale', currency: 'KWD', amountCents: 12_345 });
  });

  test.each([
    ['KWD 1.234 is 1234 fils', '1.234', 'KWD', 1_234],
    ['JPY 500 written 500.00 is ¥500', '500.00', 'JPY', 500],
    ['USD 53.00 is 5300 cents', '53.00', 'USD', 5_300],
    ['USD 5.123 cannot be cents: the rest of the sale, as any unreadable amount', '5.123', 'USD', null],
  ] as const)('dodo dispute decimal: %s', (_label, amount, currency, cents) => {
    const r = dodo(dodoEvent('dispute.lost', dodoDispute({ amount, currency })));
    expect(r.jobs[0]).toMatchObject({ kind: 'refund', amount: { type: 'per_refund', cents } });
  });
});

describe('stripe refunds in its own minor units', () => {
  test.each([
    ['ISK 15000 (two decimals at Stripe) is 150 krónur', 'isk', 15_000, 150],
    ['MGA 1500 (zero-decimal at Stripe) is 150000 ISO minor units', 'mga', 1_500, 150_000],
    ['KWD 4110 is 4110 fils', 'kwd', 4_110, 4_110],
  ])('%s', (_label, currency, amount, cents) => {
    const r = normaliseStripe(stripeEvent('refund.updated', stripeRefund({ currency, amount })));
    expect(r.jobs[0]).toMatchObject({ kind: 'refund', amount: { type: 'per_refund', cents } });
  });

  test('ISK with a fraction of a króna: refused', () => {
    const r = normaliseStripe(stripeEvent('refund.updated', stripeRefund({ currency: 'isk', amount: 15_050 })));
    expect(r).toMatchObject({ jobs: [], ignoredReason: 'unsupported_minor_units' });
  });
});
