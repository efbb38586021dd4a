/** The Paddle adapter on adjustments: refunds, credits and chargebacks (fixture objects). */
import { describe, expect, test } from 'vitest';
import { NOW } from './fixtures/clock.ts';
import { normalisePaddle as normalise, transactionCompleted as completed } from './fixtures/normalise.ts';
import { paddleAdjustment, paddleEvent } from './fixtures/paddle.ts';

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
