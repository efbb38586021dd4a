import { describe, expect, test } from 'vitest';
import { NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { normalisePaddle as normalise } from './fixtures/normalise.ts';
import { loadPublished } from './fixtures/published.ts';

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
    expect(normalise(event, { testConnection: true }).jobs[0]?.test).toBe(true);
  });
});
