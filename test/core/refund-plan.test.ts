import { describe, expect, test } from 'vitest';
import { idempotencyKey, planRefund, refundEffect } from '../../src/core/refunds/refund-plan.ts';
import { buildRefundJob, type RefundAmount } from '../../src/core/jobs/refund-job.ts';

const job = (origin: 'api' | 'provider', amount: RefundAmount, refundId: string | null = null) =>
  buildRefundJob({ origin, programId: 1, transactionId: 't', amount, refundId, test: false, receivedAt: 'x' });
const per = (cents: number | null): RefundAmount => ({ type: 'per_refund', cents });
const cumulative = (totalCents: number): RefundAmount => ({ type: 'cumulative', totalCents });

describe('planRefund: the job amount in sale terms, and its idempotency key', () => {
  // [case, sale {amount, refunded, paid}, job, prior paid, expected plan]
  test.each([
    [
      'API amount as sent',
      [10_000, 0, null],
      job('api', per(2_500), 're_1'),
      0,
      { kind: 'apply', amountCents: 2_500, requestedCents: 2_500, refundId: 're_1' },
    ],
    [
      'omitted amount: the rest, refund id ignored',
      [10_000, 4_000, null],
      job('api', per(null), 're_x'),
      0,
      { kind: 'apply', amountCents: 6_000, requestedCents: null, refundId: null },
    ],
    [
      'zero amount: the rest',
      [10_000, 0, null],
      job('api', per(0)),
      0,
      { kind: 'apply', amountCents: 10_000, requestedCents: null, refundId: null },
    ],
    [
      'the rest of a fully refunded sale',
      [10_000, 10_000, null],
      job('api', per(null)),
      0,
      { kind: 'skip', reason: 'commission already reversed' },
    ],
    [
      'cumulative total: only the increase',
      [10_000, 3_000, null],
      job('provider', cumulative(5_000)),
      0,
      { kind: 'apply', amountCents: 2_000, requestedCents: null, refundId: 'cumulative-5000' },
    ],
    [
      'cumulative total already applied',
      [10_000, 5_000, null],
      job('provider', cumulative(5_000)),
      0,
      { kind: 'skip', reason: 'cumulative refund total already applied' },
    ],
    [
      'provider amount scaled from paid (tax excluded) onto the sale',
      [10_000, 0, 12_000],
      job('provider', per(6_000), 're_p'),
      0,
      { kind: 'apply', amountCents: 5_000, requestedCents: 6_000, refundId: 're_p' },
    ],
    [
      'second partial scaled from the cumulative paid total (no drift)',
      [10_000, 1, 12_000],
      job('provider', per(1), 're_q'),
      1,
      { kind: 'apply', amountCents: 1, requestedCents: 1, refundId: 're_q' },
    ],
    [
      'API amounts are never scaled',
      [10_000, 0, 12_000],
      job('api', per(6_000)),
      0,
      { kind: 'apply', amountCents: 6_000, requestedCents: 6_000, refundId: null },
    ],
  ] as const)('%s', (_, [amountCents, refundedCents, paidCents], j, prior, expected) => {
    expect(planRefund({ amountCents, refundedCents, paidCents }, j, prior)).toEqual(expected);
  });

  test.each([
    ['a refund inside the running total already applied: skipped', 0, 5_000, 3_000, { kind: 'skip' }],
    ['a refund partly beyond it: only the part beyond', 0, 5_000, 8_000, { kind: 'apply', amountCents: 3_000 }],
    [
      'after earlier single refunds, beyond the total: whole',
      6_000,
      5_000,
      1_000,
      { kind: 'apply', amountCents: 1_000 },
    ],
    ['no running total reported: as sent', 2_000, 0, 1_000, { kind: 'apply', amountCents: 1_000 }],
  ] as const)('provider refund beside a cumulative total — %s', (_, prior, covered, cents, expected) => {
    const plan = planRefund(
      { amountCents: 10_000, refundedCents: 0, paidCents: null },
      job('provider', per(cents), 're'),
      prior,
      covered,
    );
    expect(plan).toMatchObject(expected);
  });

  test('an API refund ignores provider running totals', () => {
    expect(
      planRefund({ amountCents: 10_000, refundedCents: 5_000, paidCents: null }, job('api', per(1_000)), 0, 5_000),
    ).toMatchObject({ kind: 'apply', amountCents: 1_000 });
  });

  test('the key: refund id, else the amount, else none; a cumulative total keys itself', () => {
    expect(idempotencyKey(job('api', per(100), 're'))).toEqual({ refundId: 're' });
    expect(idempotencyKey(job('api', per(100)))).toEqual({ requestedCents: 100 });
    expect(idempotencyKey(job('api', per(null), 're'))).toBeNull();
    expect(idempotencyKey(job('provider', cumulative(700)))).toEqual({ refundId: 'cumulative-700' });
  });
});

describe('refundEffect: capped, proportional, and from the balance only when credited', () => {
  const commission = (credited: boolean, reversedCents = 0) => ({ amountCents: 1_000, reversedCents, credited });
  test.each([
    [
      'partial of a pending commission',
      [10_000, 0],
      commission(false),
      2_500,
      {
        appliedCents: 2_500,
        refundedTotalCents: 2_500,
        deductionCents: 250,
        balanceDeductionCents: 0,
        status: 'refunded',
      },
    ],
    [
      'partial of a credited commission',
      [10_000, 0],
      commission(true),
      2_500,
      {
        appliedCents: 2_500,
        refundedTotalCents: 2_500,
        deductionCents: 250,
        balanceDeductionCents: 250,
        status: 'refunded',
      },
    ],
    [
      'rounding half up on the cumulative share',
      [3, 0],
      { amountCents: 1, reversedCents: 0, credited: true },
      2,
      { appliedCents: 2, refundedTotalCents: 2, deductionCents: 1, balanceDeductionCents: 1, status: 'refunded' },
    ],
    [
      'over-refund capped at the rest of the sale',
      [10_000, 9_000],
      commission(true, 900),
      5_000,
      {
        appliedCents: 1_000,
        refundedTotalCents: 10_000,
        deductionCents: 100,
        balanceDeductionCents: 100,
        status: 'reversed',
      },
    ],
    [
      'no commission: only the sale moves',
      [10_000, 0],
      null,
      10_000,
      {
        appliedCents: 10_000,
        refundedTotalCents: 10_000,
        deductionCents: 0,
        balanceDeductionCents: 0,
        status: 'reversed',
      },
    ],
  ] as const)('%s', (_, [amountCents, refundedCents], c, planned, expected) => {
    expect(refundEffect({ amountCents, refundedCents }, c, planned)).toEqual(expected);
  });
});
