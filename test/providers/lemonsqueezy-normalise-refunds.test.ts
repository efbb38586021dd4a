/** The Lemon Squeezy adapter on refunds: the cumulative total, and the older shape without it. */
import { describe, expect, test } from 'vitest';
import { NOW } from './fixtures/clock.ts';
import { lemonSqueezyEvent, lemonSqueezyInvoice, lemonSqueezyOrder } from './fixtures/lemonsqueezy.ts';
import { normaliseLemonSqueezy as normalise } from './fixtures/normalise.ts';
import { loadPublished } from './fixtures/published.ts';

describe('lemon squeezy normalise: refunds carry the cumulative total', () => {
  test('order_refunded → cumulative refund of the order, no refund id', () => {
    const event = lemonSqueezyEvent(
      'order_refunded',
      lemonSqueezyOrder({ status: 'partial_refund', refunded_amount: 1500 }),
    );
    expect(normalise(event).jobs).toEqual([
      {
        kind: 'refund',
        origin: 'provider',
        programId: 42,
        transactionId: 'ls-order-1001',
        amount: { type: 'cumulative', totalCents: 1500 },
        refundId: null,
        refundReason: null,
        reason: 'refund',
        saleAlias: null,
        saleLookup: null,
        test: false,
        receivedAt: NOW.toISOString(),
      },
    ]);
  });

  test.each([
    {
      label: 'order',
      sale: lemonSqueezyEvent('order_created', lemonSqueezyOrder()),
      refund: lemonSqueezyEvent('order_refunded', lemonSqueezyOrder({ refunded_amount: 4900, status: 'refunded' })),
    },
    {
      label: 'renewal invoice',
      sale: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice()),
      refund: lemonSqueezyEvent(
        'subscription_payment_refunded',
        lemonSqueezyInvoice({ refunded_amount: 900, status: 'partial_refund' }),
      ),
    },
  ])('a refund finds its sale: $label refund rebuilds the sale’s transaction id', ({ sale, refund }) => {
    expect(normalise(refund).jobs[0]?.transactionId).toBe(normalise(sale).jobs[0]?.transactionId);
    expect(normalise(refund).jobs[0]).toMatchObject({ amount: { type: 'cumulative' } });
  });

  test.each([
    {
      label: 'refund of the initial invoice: applied from order_refunded',
      event: lemonSqueezyEvent(
        'subscription_payment_refunded',
        lemonSqueezyInvoice({ billing_reason: 'initial', refunded_amount: 500 }),
      ),
      reason: 'first_payment_refund_applied_by_order_refunded',
    },
    {
      label: 'refunded_amount missing',
      event: lemonSqueezyEvent('order_refunded', lemonSqueezyOrder({ refunded_amount: undefined })),
      reason: 'missing_amount',
    },
    {
      label: 'refunded_amount 0',
      event: lemonSqueezyEvent('subscription_payment_refunded', lemonSqueezyInvoice({ refunded_amount: 0 })),
      reason: 'missing_amount',
    },
  ])('ignored: $label → $reason', ({ event, reason }) => {
    expect(normalise(event)).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

/**
 * The older payload shape: no `refunded_amount`, only `refunded` and `status`. On the invoice Lemon
 * Squeezy's API reference publishes (fixtures/published/SOURCES.md), with a renewal's refund laid
 * over its attributes.
 */
describe('lemon squeezy normalise: refunds without refunded_amount (older shape)', () => {
  type Json = Record<string, unknown>;
  const publishedInvoice = (attributes: Json) => {
    const invoice = loadPublished('lemonsqueezy', 'subscription-invoice');
    return { ...invoice, attributes: { ...(invoice.attributes as Json), billing_reason: 'renewal', ...attributes } };
  };

  test('the published invoice has no refunded_amount', () => {
    expect(loadPublished('lemonsqueezy', 'subscription-invoice').attributes).not.toHaveProperty('refunded_amount');
  });

  test('subscription_payment_refunded with refunded true → the whole invoice total, as a cumulative total', () => {
    const event = lemonSqueezyEvent(
      'subscription_payment_refunded',
      publishedInvoice({ status: 'refunded', refunded: true, refunded_at: '2026-03-05T10:00:00.000000Z' }),
    );
    const result = normalise(event);
    expect(result.jobs).toEqual([
      {
        kind: 'refund',
        origin: 'provider',
        programId: 42,
        transactionId: 'ls-invoice-1',
        amount: { type: 'cumulative', totalCents: 999 },
        refundId: null,
        refundReason: null,
        reason: 'refund',
        saleAlias: null,
        saleLookup: null,
        test: false,
        receivedAt: NOW.toISOString(),
      },
    ]);
    // The sale the invoice was recorded as has the same transaction id and amount.
    const sale = normalise(lemonSqueezyEvent('subscription_payment_success', publishedInvoice({}))).jobs[0];
    expect(sale).toMatchObject({ transactionId: 'ls-invoice-1', amountCents: 999 });
  });

  test.each([
    {
      label: 'refunded false (a partial refund of this shape names no amount)',
      attributes: { status: 'partial_refund', refunded: false },
    },
    { label: 'refunded true but status partial_refund', attributes: { status: 'partial_refund', refunded: true } },
    { label: 'refunded missing', attributes: { status: 'refunded', refunded: undefined } },
  ])('$label → missing_amount', ({ attributes }) => {
    expect(normalise(lemonSqueezyEvent('subscription_payment_refunded', publishedInvoice(attributes)))).toMatchObject({
      jobs: [],
      ignoredReason: 'missing_amount',
    });
  });

  test('order_refunded of the same shape is a full refund of the order total too', () => {
    const event = lemonSqueezyEvent(
      'order_refunded',
      lemonSqueezyOrder({ refunded_amount: undefined, refunded: true, status: 'refunded' }),
    );
    expect(normalise(event).jobs[0]).toMatchObject({
      transactionId: 'ls-order-1001',
      amount: { type: 'cumulative', totalCents: 4900 },
    });
  });

  test('refunded_amount, when present, wins over refunded', () => {
    const event = lemonSqueezyEvent(
      'subscription_payment_refunded',
      publishedInvoice({ status: 'partial_refund', refunded: true, refunded_amount: 300 }),
    );
    expect(normalise(event).jobs[0]).toMatchObject({ amount: { type: 'cumulative', totalCents: 300 } });
  });
});
