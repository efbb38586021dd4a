/** The Paddle adapter on transaction.completed and the event envelope (fixture objects). */
import { describe, expect, test } from 'vitest';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { normalisePaddle as normalise, transactionCompleted as completed } from './fixtures/normalise.ts';
import { monthlyItem, paddleEvent, paddleTransaction } from './fixtures/paddle.ts';

describe('paddle normalise: transaction.completed', () => {
  test('a completed one-off transaction becomes one sale under the Paddle transaction id', () => {
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: 'txn_01hv8wptq8987qeep44cyrewp9',
      amountCents: 4900,
      taxCents: 400,
      currency: 'USD',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: 'pro_01gsz97mq9pa4fkyy0wqenepkz',
      occurredAt: new Date(NOW.getTime() - 3000).toISOString(),
      provider: 'paddle',
      providerPaymentId: 'txn_01hv8wptq8987qeep44cyrewp9',
      providerCustomerId: 'ctm_01hv6y1jedq4p1n0yqn5ba3ky4',
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
    expect(normalise(completed())).toEqual({
      dedupeKey: 'evt_01hv8x2axb33yr5y238zfwcn5p',
      eventType: 'transaction.completed',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test.each([
    {
      label: 'first subscription payment (origin web) → subscription sale, not recurring',
      overrides: { subscription_id: 'sub_01h', items: [monthlyItem()] },
      job: { saleType: 'subscription', isRecurring: false, subscriptionId: 'sub_01h', subscriptionInterval: 'monthly' },
    },
    {
      label: 'renewal (origin subscription_recurring) → recurring',
      overrides: { subscription_id: 'sub_01h', origin: 'subscription_recurring' },
      job: { saleType: 'subscription', isRecurring: true },
    },
    {
      label: 'upgrade charge (origin subscription_update) → recurring',
      overrides: { subscription_id: 'sub_01h', origin: 'subscription_update' },
      job: { isRecurring: true },
    },
    {
      label: 'several items → no single product or interval to report',
      overrides: { items: [monthlyItem(), monthlyItem()] },
      job: { productId: null, subscriptionInterval: null },
    },
    {
      label: 'custom_data.test_mode true → test sale',
      overrides: { custom_data: { ...TRACKER_METADATA, test_mode: true } },
      job: { test: true },
    },
    {
      label: 'custom_data.livemode false → test sale',
      overrides: { custom_data: { ...TRACKER_METADATA, livemode: false } },
      job: { test: true },
    },
    {
      label: 'program_id sent as a JSON number still matches',
      overrides: { custom_data: { ...TRACKER_METADATA, program_id: 42 } },
      job: { programId: 42 },
    },
    {
      label: 'custom_data null → sale without attribution keys',
      overrides: { custom_data: null },
      job: { clickId: null, customerKey: null, visitorId: null },
    },
    { label: 'currency in lower case → upper-cased', overrides: { currency_code: 'eur' }, job: { currency: 'EUR' } },
  ])('$label', ({ overrides, job }) => {
    const result = normalise(completed(overrides));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject(job);
  });

  test('a sandbox connection marks the sale as test', () => {
    expect(normalise(completed(), { testConnection: true }).jobs[0]?.test).toBe(true);
  });

  const totals = (total: unknown) => ({ details: { totals: { total, tax: '0' } } });
  test.each([
    {
      label: 'tagged for another program',
      overrides: { custom_data: { ...TRACKER_METADATA, program_id: '7' } },
      reason: 'program_mismatch',
    },
    { label: 'total in major units ("49.00")', overrides: totals('49.00'), reason: 'missing_amount' },
    { label: 'total in exponent notation', overrides: totals('4.9e3'), reason: 'missing_amount' },
    { label: 'negative total', overrides: totals('-4900'), reason: 'missing_amount' },
    { label: 'total beyond a safe integer', overrides: totals('99999999999999999'), reason: 'missing_amount' },
    { label: 'no details at all', overrides: { details: null }, reason: 'missing_amount' },
    {
      label: 'payment-method change for 0',
      overrides: { origin: 'subscription_payment_method_change', ...totals('0') },
      reason: 'zero_amount',
    },
    { label: 'status not completed', overrides: { status: 'billed' }, reason: 'not_paid' },
    { label: 'no currency', overrides: { currency_code: null }, reason: 'missing_currency' },
  ])('ignored: $label → $reason', ({ overrides, reason }) => {
    expect(normalise(completed(overrides))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('paddle normalise: envelope', () => {
  test.each([
    {
      label: 'unknown event type',
      event: paddleEvent('subscription.created', { id: 'sub_1' }),
      reason: 'unhandled_event_type',
    },
    {
      label: 'transaction.paid (completed follows)',
      event: paddleEvent('transaction.paid', paddleTransaction()),
      reason: 'unhandled_event_type',
    },
    {
      label: 'handled type without data',
      event: { event_id: 'evt_1', event_type: 'transaction.completed' },
      reason: 'missing_event_object',
    },
  ])('$label → ignored $reason', ({ event, reason }) => {
    expect(normalise(event)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('dedupe key is event_id with any ":" replaced', () => {
    expect(normalise(paddleEvent('transaction.completed', paddleTransaction(), { event_id: 'evt:01' })).dedupeKey).toBe(
      'evt-01',
    );
  });
});
