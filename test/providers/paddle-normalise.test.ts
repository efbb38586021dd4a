import { describe, expect, test } from 'vitest';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { createPaddleAdapter } from '../../src/providers/paddle/adapter.ts';
import { CTX, NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { loadPublished } from './fixtures/published.ts';
import { monthlyItem, paddleAdjustment, paddleEvent, paddleTransaction } from './fixtures/paddle.ts';

const adapter = createPaddleAdapter();
const normalise = (event: unknown) => adapter.normalise(event, CTX);
const completed = (overrides: Record<string, unknown> = {}) =>
  paddleEvent('transaction.completed', paddleTransaction(overrides));

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
    expect(adapter.normalise(completed(), { ...CTX, testConnection: true }).jobs[0]?.test).toBe(true);
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

describe('paddle normalise: adjustments', () => {
  test('an approved refund adjustment becomes a per-refund job on the sale’s transaction id', () => {
    const result = normalise(paddleEvent('adjustment.updated', paddleAdjustment()));
    expect(result.jobs).toEqual([
      {
        kind: 'refund',
        origin: 'provider',
        programId: 42,
        transactionId: 'txn_01hv8wptq8987qeep44cyrewp9',
        amount: { type: 'per_refund', cents: 1000 },
        refundId: 'adj_01hvgf2s84dr6reszzg29zbvcm',
        refundReason: 'Customer changed their mind',
        reason: 'refund',
        saleAlias: null,
        saleLookup: null,
        test: false,
        receivedAt: NOW.toISOString(),
      },
    ]);
    expect(result.jobs[0]?.transactionId).toBe(normalise(completed()).jobs[0]?.transactionId);
  });

  test.each([
    {
      label: 'created already approved (applied; a later update is skipped by refund id)',
      type: 'adjustment.created',
      overrides: {},
      reason: null,
    },
    {
      label: 'created pending approval (the later adjustment.updated applies it)',
      type: 'adjustment.created',
      overrides: { status: 'pending_approval' },
      reason: 'refund_not_approved',
    },
    {
      label: 'rejected refund',
      type: 'adjustment.updated',
      overrides: { status: 'rejected' },
      reason: 'refund_not_approved',
    },
    {
      label: 'credit to the customer balance',
      type: 'adjustment.created',
      overrides: { action: 'credit' },
      reason: 'not_a_refund',
    },
    {
      label: 'chargeback warning (no money moved yet)',
      type: 'adjustment.created',
      overrides: { action: 'chargeback_warning' },
      reason: 'not_a_refund',
    },
    {
      label: 'credit reversed',
      type: 'adjustment.created',
      overrides: { action: 'credit_reverse' },
      reason: 'not_a_refund',
    },
    {
      label: 'chargeback without its id',
      type: 'adjustment.created',
      overrides: { action: 'chargeback', id: null },
      reason: 'missing_dispute_id',
    },
    { label: 'no totals', type: 'adjustment.updated', overrides: { totals: null }, reason: 'missing_amount' },
    {
      label: 'no transaction id',
      type: 'adjustment.updated',
      overrides: { transaction_id: null },
      reason: 'missing_transaction_id',
    },
  ])('$label → $reason', ({ type, overrides, reason }) => {
    const result = normalise(paddleEvent(type, paddleAdjustment(overrides)));
    expect(result.ignoredReason).toBe(reason);
    expect(result.jobs).toHaveLength(reason === null ? 1 : 0);
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

/**
 * The Paddle Node SDK's notification mocks (fixtures/published/SOURCES.md), with only the fields a
 * scenario needs laid over `data`.
 */
describe('paddle normalise: published notification mocks', () => {
  type Json = Record<string, unknown>;
  const publishedEvent = (name: string, data: Json = {}) => {
    const event = loadPublished('paddle', name);
    return { ...event, data: { ...(event.data as Json), ...data } };
  };
  const publishedTotals = () =>
    (loadPublished('paddle', 'transaction-completed').data as Json).details as { totals: Json };
  const withTotals = (totals: Json) => ({
    details: { ...publishedTotals(), totals: { ...publishedTotals().totals, ...totals } },
  });

  test('transaction.completed: the sale is grand_total with its tax (no credit: the same as total)', () => {
    const result = normalise(publishedEvent('transaction-completed', { custom_data: { ...TRACKER_METADATA } }));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject({
      kind: 'sale',
      transactionId: 'txn_01h8dzxgkvdwemdhbpcapj2tbj',
      amountCents: 65215,
      taxCents: 5315,
      currency: 'USD',
    });
  });

  test('a credited transaction: the sale is grand_total (total minus credit) with grand_total_tax', () => {
    const event = publishedEvent('transaction-completed', {
      custom_data: { ...TRACKER_METADATA },
      ...withTotals({ credit: '20000', grand_total: '45215', grand_total_tax: '3685' }),
    });
    expect(normalise(event).jobs[0]).toMatchObject({ amountCents: 45215, taxCents: 3685 });
  });

  test.each([
    {
      label: 'grand_total without grand_total_tax → the tax scaled by grand_total / total',
      totals: { credit: '20000', grand_total: '45215', grand_total_tax: undefined },
      job: { amountCents: 45215, taxCents: Math.round((5315 * 45215) / 65215) },
    },
    {
      label: 'no grand_total (older shape) → total and tax',
      totals: { grand_total: undefined, grand_total_tax: undefined },
      job: { amountCents: 65215, taxCents: 5315 },
    },
    {
      label: 'credit covering everything → zero_amount',
      totals: { credit: '65215', grand_total: '0', grand_total_tax: '0' },
      reason: 'zero_amount',
    },
    {
      label: 'unreadable grand_total → missing_amount, never total',
      totals: { grand_total: '452.15' },
      reason: 'missing_amount',
    },
  ])('$label', ({ totals, job, reason }) => {
    const result = normalise(
      publishedEvent('transaction-completed', { custom_data: { ...TRACKER_METADATA }, ...withTotals(totals) }),
    );
    if (reason) expect(result).toMatchObject({ jobs: [], ignoredReason: reason });
    else expect(result.jobs[0]).toMatchObject(job!);
  });

  test('adjustment.created refund pending approval → refund_not_approved (as published)', () => {
    expect(normalise(publishedEvent('adjustment-created'))).toMatchObject({
      jobs: [],
      ignoredReason: 'refund_not_approved',
    });
  });

  test('adjustment.updated approved refund → per-refund job of totals.total', () => {
    const result = normalise(publishedEvent('adjustment-updated', { status: 'approved' }));
    expect(result.jobs).toEqual([
      expect.objectContaining({
        kind: 'refund',
        transactionId: 'txn_01h8bxpvx398a7zbawb77y0kp5',
        reason: 'refund',
        amount: { type: 'per_refund', cents: 100 },
      }),
    ]);
  });

  test('a chargeback adjustment reverses like a refund with reason chargeback, keyed by the adjustment id', () => {
    const result = normalise(
      publishedEvent('adjustment-created', {
        action: 'chargeback',
        status: 'approved',
        type: 'full',
        // Paddle's adjustment reason is free text; a chargeback's recorded reason stays `chargeback`.
        reason: 'Cardholder disputed the payment',
      }),
    );
    expect(result.jobs).toEqual([
      {
        kind: 'refund',
        origin: 'provider',
        programId: 42,
        transactionId: 'txn_01h8bxpvx398a7zbawb77y0kp5',
        amount: { type: 'per_refund', cents: 100 },
        refundId: 'adj_01h8c6tbrkpdd7vx61w7b1r0ap',
        refundReason: null,
        reason: 'chargeback',
        saleAlias: null,
        saleLookup: null,
        test: false,
        receivedAt: NOW.toISOString(),
      },
    ]);
  });

  test('a chargeback_reverse adjustment (chargeback won) asks for a review of the sale’s chargebacks, once per adjustment', () => {
    const result = normalise(
      publishedEvent('adjustment-created', {
        id: 'adj_reverse1',
        action: 'chargeback_reverse',
        status: 'approved',
        type: 'full',
      }),
    );
    expect(result.jobs).toEqual([
      {
        kind: 'dispute_won',
        origin: 'provider',
        programId: 42,
        transactionId: 'txn_01h8bxpvx398a7zbawb77y0kp5',
        chargebackId: null,
        decisionId: 'adj_reverse1',
        test: false,
        receivedAt: NOW.toISOString(),
      },
    ]);
  });

  test('a sandbox connection marks a chargeback as test', () => {
    const event = publishedEvent('adjustment-created', { action: 'chargeback', status: 'approved' });
    expect(adapter.normalise(event, { ...CTX, testConnection: true }).jobs[0]?.test).toBe(true);
  });
});
