/** The Lemon Squeezy adapter on sales and the dedupe keys it synthesises. */
import { describe, expect, test } from 'vitest';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { lemonSqueezyEvent, lemonSqueezyInvoice, lemonSqueezyOrder } from './fixtures/lemonsqueezy.ts';
import { normaliseLemonSqueezy as normalise } from './fixtures/normalise.ts';

describe('lemon squeezy normalise: sales', () => {
  test('a paid order becomes one sale under ls-order-<id>', () => {
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: 'ls-order-1001',
      amountCents: 4900,
      taxCents: 400,
      currency: 'EUR',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: '3003',
      occurredAt: '2026-03-02T09:59:40.000Z',
      provider: 'lemonsqueezy',
      providerPaymentId: '1001',
      customerKey: 'user_1234',
      clickId: 'clk_7Hq2x',
      visitorId: 'vis_9f8e',
      origin: 'provider',
      couponCodes: null,
      couponLookup: null,
      aliasLookup: null,
      orderLookup: null,
      additionalData: null,
      receivedAt: NOW.toISOString(),
    };
    expect(normalise(lemonSqueezyEvent('order_created', lemonSqueezyOrder()))).toEqual({
      dedupeKey: 'order_created-orders-1001-paid-0',
      eventType: 'order_created',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test.each([
    {
      label: 'test-mode store (meta.test_mode) → test sale',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder(), { test_mode: true }),
      job: { test: true },
    },
    {
      label: 'test-mode order (attributes.test_mode) → test sale',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder({ test_mode: true })),
      job: { test: true },
    },
    {
      label: 'renewal invoice → recurring subscription sale under ls-invoice-<id>',
      event: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice()),
      job: {
        transactionId: 'ls-invoice-2002',
        providerPaymentId: '2002',
        saleType: 'subscription',
        isRecurring: true,
        subscriptionId: '3301',
        amountCents: 2900,
        currency: 'USD',
        customerKey: 'user_1234',
      },
    },
    {
      label: 'plan-change invoice (billing_reason updated) → recurring',
      event: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice({ billing_reason: 'updated' })),
      job: { isRecurring: true },
    },
    {
      label: 'program_id as a JSON number matches',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder(), { custom_data: { program_id: 42 } }),
      job: { clickId: null },
    },
  ])('$label', ({ event, job }) => {
    const result = normalise(event);
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject(job);
  });

  test.each([
    {
      label: 'pending order (bank transfer not settled)',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder({ status: 'pending' })),
      reason: 'not_paid',
    },
    {
      label: 'failed order',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder({ status: 'failed' })),
      reason: 'not_paid',
    },
    {
      label: 'order for another program',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder(), {
        custom_data: { ...TRACKER_METADATA, program_id: '7' },
      }),
      reason: 'program_mismatch',
    },
    {
      label: 'total as a decimal',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder({ total: 49.5 })),
      reason: 'missing_amount',
    },
    {
      label: 'free order',
      event: lemonSqueezyEvent('order_created', lemonSqueezyOrder({ total: 0 })),
      reason: 'zero_amount',
    },
    {
      label: 'initial invoice: order_created already recorded it',
      event: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice({ billing_reason: 'initial' })),
      reason: 'first_payment_recorded_by_order_created',
    },
    {
      label: 'invoice with an unknown billing reason',
      event: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice({ billing_reason: 'other' })),
      reason: 'unhandled_billing_reason',
    },
    {
      label: 'invoice not paid',
      event: lemonSqueezyEvent('subscription_payment_success', lemonSqueezyInvoice({ status: 'pending' })),
      reason: 'not_paid',
    },
    {
      label: 'resource without attributes',
      event: lemonSqueezyEvent('order_created', { type: 'orders', id: '1' }),
      reason: 'missing_attributes',
    },
  ])('ignored: $label → $reason', ({ event, reason }) => {
    expect(normalise(event)).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('lemon squeezy normalise: synthesised dedupe keys', () => {
  const refundOf = (cents: number) =>
    lemonSqueezyEvent('order_refunded', lemonSqueezyOrder({ status: 'partial_refund', refunded_amount: cents }));

  test.each([
    { label: 'a redelivery of the same webhook collapses', a: refundOf(1000), b: refundOf(1000), same: true },
    {
      label: 'a second partial refund (higher running total) is a new event',
      a: refundOf(1000),
      b: refundOf(2500),
      same: false,
    },
    {
      label: 'the same order reported as created and as refunded differ',
      a: lemonSqueezyEvent('order_created', lemonSqueezyOrder()),
      b: refundOf(1000),
      same: false,
    },
  ])('$label', ({ a, b, same }) => {
    expect(normalise(a).dedupeKey === normalise(b).dedupeKey).toBe(same);
  });

  test('keys never contain ":" even when payload values do', () => {
    const event = lemonSqueezyEvent('order:created', lemonSqueezyOrder({ status: 'a:b' }, '1:2'));
    expect(normalise(event).dedupeKey).not.toContain(':');
  });

  test('unknown event names are ignored', () => {
    expect(
      normalise(lemonSqueezyEvent('license_key_created', { type: 'license-keys', id: '5', attributes: {} })),
    ).toMatchObject({ jobs: [], ignoredReason: 'unhandled_event_type' });
  });
});
