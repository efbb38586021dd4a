import { describe, expect, test } from 'vitest';
import type { RefundJob } from '../../src/core/jobs/refund-job.ts';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { createPolarAdapter } from '../../src/providers/polar/adapter.ts';
import { CTX, NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { polarEvent, polarOrder, polarRefund, polarSubscriptionOrder } from './fixtures/polar.ts';

const adapter = createPolarAdapter();
const normalise = (event: unknown, testConnection = false) => adapter.normalise(event, { ...CTX, testConnection });

describe('polar normalise: order.paid', () => {
  test('a paid one-off order becomes one sale under the order id, tax included and reported', () => {
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: '3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a11',
      amountCents: 9720,
      taxCents: 720,
      currency: 'USD',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: 'b2c4e6f8-0000-4000-8000-00000000p0d1',
      occurredAt: '2026-03-02T09:59:58.441Z',
      provider: 'polar',
      providerPaymentId: '3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a11',
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
    expect(normalise(polarEvent('order.paid', polarOrder()))).toEqual({
      dedupeKey: 'order.paid-3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a11-paid',
      eventType: 'order.paid',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test.each([
    {
      label: 'first subscription payment (subscription_create) → subscription sale, not recurring, monthly',
      order: polarSubscriptionOrder('subscription_create'),
      job: {
        saleType: 'subscription',
        isRecurring: false,
        subscriptionId: '5ub5c41b-0000-4000-8000-00000000sub1',
        subscriptionInterval: 'monthly',
      },
    },
    {
      label: 'renewal (subscription_cycle) → recurring',
      order: polarSubscriptionOrder('subscription_cycle'),
      job: { saleType: 'subscription', isRecurring: true },
    },
    {
      label: 'renewal whose order metadata is empty → keys read from the subscription',
      order: polarSubscriptionOrder('subscription_cycle', { metadata: {} }),
      job: { customerKey: 'user_1234', clickId: 'clk_7Hq2x' },
    },
    {
      label: 'metadata program_id as a number still matches',
      order: polarOrder({ metadata: { ...TRACKER_METADATA, program_id: 42 } }),
      job: { programId: 42 },
    },
  ])('$label', ({ order, job }) => {
    const result = normalise(polarEvent('order.paid', order));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject(job);
  });

  test('an event verified by a test secret is a test sale', () => {
    expect(normalise(polarEvent('order.paid', polarOrder()), true).jobs[0]).toMatchObject({ test: true });
  });

  test.each([
    { label: 'an order not yet paid', order: polarOrder({ status: 'pending', paid: false }), reason: 'not_paid' },
    { label: 'a zero total (100% discount)', order: polarOrder({ total_amount: 0 }), reason: 'zero_amount' },
    {
      label: 'metadata tagged for another program',
      order: polarOrder({ metadata: { ...TRACKER_METADATA, program_id: '7' } }),
      reason: 'program_mismatch',
    },
    { label: 'no order id', order: polarOrder({ id: null }), reason: 'missing_transaction_id' },
  ])('ignores $label → $reason', ({ order, reason }) => {
    expect(normalise(polarEvent('order.paid', order))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('polar normalise: refunds', () => {
  test('a succeeded refund becomes a per-refund job on the order: amount plus its tax', () => {
    const expected: RefundJob = {
      kind: 'refund',
      origin: 'provider',
      programId: 42,
      transactionId: '3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a11',
      amount: { type: 'per_refund', cents: 3240 },
      refundId: 'f5e4d3c2-0000-4000-8000-0000000ref01',
      refundReason: 'customer_request',
      reason: 'refund',
      saleAlias: null,
      saleLookup: null,
      test: false,
      receivedAt: NOW.toISOString(),
    };
    for (const type of ['refund.created', 'refund.updated']) {
      expect(normalise(polarEvent(type, polarRefund()))).toEqual({
        dedupeKey: `${type}-f5e4d3c2-0000-4000-8000-0000000ref01-succeeded`,
        eventType: type,
        jobs: [expected],
        ignoredReason: null,
      });
    }
  });

  test('a pending refund is ignored; its later success is another event (another dedupe key)', () => {
    const pending = normalise(polarEvent('refund.created', polarRefund({ status: 'pending' })));
    const succeeded = normalise(polarEvent('refund.updated', polarRefund()));
    expect(pending).toMatchObject({ jobs: [], ignoredReason: 'refund_not_succeeded' });
    expect(succeeded.dedupeKey).not.toBe(pending.dedupeKey);
  });

  test('a refund without an order id is ignored', () => {
    expect(normalise(polarEvent('refund.updated', polarRefund({ order_id: null })))).toMatchObject({
      ignoredReason: 'missing_transaction_id',
    });
  });
});

test('polar: order.created, order.updated and other events are not handled (order.paid carries the sale)', () => {
  for (const type of ['order.created', 'order.updated', 'subscription.active']) {
    expect(normalise(polarEvent(type, polarOrder()))).toMatchObject({
      jobs: [],
      ignoredReason: 'unhandled_event_type',
    });
  }
});

describe('polar normalise: order.refunded', () => {
  // The order as Polar publishes it (fixtures/polar.ts), after refunds: its running totals.
  const refunded = (amount: number, tax: number, status = 'partially_refunded') =>
    polarEvent('order.refunded', polarOrder({ status, refunded_amount: amount, refunded_tax_amount: tax }));
  test('the running refunded total, tax included, as a cumulative refund of the order', () => {
    const r = normalise(refunded(3000, 240));
    expect(r.jobs).toEqual([
      expect.objectContaining({
        kind: 'refund',
        transactionId: '3f1c2a4e-8b6d-4f0e-9a51-0c7e2d9b1a11',
        amount: { type: 'cumulative', totalCents: 3240 },
        refundId: null,
      }),
    ]);
    // Two partial refunds are two events: the running total tells them apart.
    expect(r.dedupeKey).not.toBe(normalise(refunded(5000, 400)).dedupeKey);
    expect(r.dedupeKey).toBe(normalise(refunded(3000, 240)).dedupeKey);
  });
  test.each([
    ['nothing refunded yet', refunded(0, 0), 'missing_amount'],
    ['an order that is not refunded', refunded(3000, 240, 'paid'), 'refund_not_succeeded'],
  ])('%s is ignored', (_, event, reason) => {
    expect(normalise(event)).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});
