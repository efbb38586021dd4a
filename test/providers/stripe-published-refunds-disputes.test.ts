/**
 * Stripe refund and dispute events built from the objects Stripe publishes in `stripe/openapi`
 * (fixtures/published): `charge.refunded` with its refunds, disputes.
 */
import { describe, expect, test } from 'vitest';
import { NOW, PROGRAM_ID } from './fixtures/clock.ts';
import { normalisePublishedStripe as normalise } from './fixtures/normalise.ts';
import { published } from './fixtures/published.ts';

const receivedAt = NOW.toISOString();

describe('stripe: charge.refunded (published charge and refund objects)', () => {
  const refundOf = (id: string, amount: number, status = 'succeeded') =>
    published('stripe', 'refund', { id, amount, status, payment_intent: 'pi_3Charge01' });
  const charge = (refunds: unknown[] | null, overrides: Record<string, unknown> = {}) => {
    const base = published('stripe', 'charge', {
      payment_intent: 'pi_3Charge01',
      amount: 10000,
      amount_captured: 10000,
      refunded: false,
      ...overrides,
    });
    if (refunds === null) {
      const { refunds: _left, ...rest } = base;
      return rest;
    }
    return {
      ...base,
      amount_refunded: refunds.reduce((sum: number, r) => sum + (r as { amount: number }).amount, 0),
      refunds: { ...(base.refunds as object), data: refunds },
    };
  };

  test('each succeeded refund of the list → its own refund job with its id and amount', () => {
    const result = normalise(
      'charge.refunded',
      charge([refundOf('re_b', 3000), refundOf('re_a', 2000), refundOf('re_p', 500, 'pending')]),
    );
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs).toEqual([
      expect.objectContaining({
        kind: 'refund',
        transactionId: 'pi_3Charge01',
        refundId: 're_b',
        amount: { type: 'per_refund', cents: 3000 },
        reason: 'refund',
      }),
      expect.objectContaining({
        kind: 'refund',
        transactionId: 'pi_3Charge01',
        refundId: 're_a',
        amount: { type: 'per_refund', cents: 2000 },
        reason: 'refund',
      }),
    ]);
  });

  test("a listed refund without its own payment_intent uses the charge's", () => {
    const refund = { ...refundOf('re_c', 1000), payment_intent: null };
    expect(normalise('charge.refunded', charge([refund])).jobs[0]).toMatchObject({
      transactionId: 'pi_3Charge01',
      refundId: 're_c',
    });
  });

  test('API versions without the refunds list → the running total, applied as a cumulative refund', () => {
    expect(normalise('charge.refunded', charge(null, { amount_refunded: 4000 })).jobs).toEqual([
      expect.objectContaining({
        kind: 'refund',
        transactionId: 'pi_3Charge01',
        refundId: null,
        amount: { type: 'cumulative', totalCents: 4000 },
      }),
    ]);
  });

  test.each([
    {
      label: 'the fixture as published (no PaymentIntent, nothing refunded)',
      object: published('stripe', 'charge'),
      reason: 'no_succeeded_refund',
    },
    {
      label: 'only pending refunds',
      object: charge([refundOf('re_p', 500, 'pending')]),
      reason: 'no_succeeded_refund',
    },
    {
      label: 'no list and no PaymentIntent',
      object: charge(null, { payment_intent: null, amount_refunded: 100 }),
      reason: 'missing_payment_intent',
    },
  ])('ignored: $label → $reason', ({ object, reason }) => {
    expect(normalise('charge.refunded', object)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('charge.refund.updated carries one refund object', () => {
    expect(normalise('charge.refund.updated', refundOf('re_u', 700)).jobs).toEqual([
      expect.objectContaining({ refundId: 're_u', amount: { type: 'per_refund', cents: 700 } }),
    ]);
  });
});

describe('stripe: disputes (published dispute object)', () => {
  const dispute = (overrides: Record<string, unknown> = {}) =>
    published('stripe', 'dispute', { payment_intent: 'pi_3Disputed01', ...overrides });

  test('funds_withdrawn → a chargeback refund of the disputed amount keyed by the dispute id', () => {
    const result = normalise('charge.dispute.funds_withdrawn', dispute({ status: 'needs_response' }), false);
    expect(result.jobs).toEqual([
      {
        kind: 'refund',
        programId: PROGRAM_ID,
        transactionId: 'pi_3Disputed01',
        amount: { type: 'per_refund', cents: 1000 },
        refundId: 'dp_1Pgc71B7WZ01zgkWMevJiAUx',
        refundReason: null,
        reason: 'chargeback',
        saleAlias: null,
        saleLookup: { provider: 'stripe', paymentIntentId: 'pi_3Disputed01' },
        origin: 'provider',
        test: true,
        receivedAt,
      },
    ]);
  });

  test.each([
    { type: 'charge.dispute.funds_reinstated', status: 'won' },
    { type: 'charge.dispute.closed', status: 'won' },
  ])('$type ($status) → a won-dispute review job for the same dispute', ({ type, status }) => {
    expect(normalise(type, dispute({ status })).jobs).toEqual([
      {
        kind: 'dispute_won',
        origin: 'provider',
        programId: PROGRAM_ID,
        transactionId: 'pi_3Disputed01',
        chargebackId: 'dp_1Pgc71B7WZ01zgkWMevJiAUx',
        decisionId: 'dp_1Pgc71B7WZ01zgkWMevJiAUx',
        test: false,
        receivedAt,
      },
    ]);
  });

  test.each([
    {
      label: 'a lost dispute (funds already withdrawn)',
      type: 'charge.dispute.closed',
      object: dispute({ status: 'lost' }),
      reason: 'dispute_not_won',
    },
    {
      label: 'a closed inquiry',
      type: 'charge.dispute.closed',
      object: dispute({ status: 'warning_closed' }),
      reason: 'dispute_not_won',
    },
    {
      label: 'the published dispute names no PaymentIntent',
      type: 'charge.dispute.funds_withdrawn',
      object: published('stripe', 'dispute'),
      reason: 'missing_payment_intent',
    },
    {
      label: 'a zero amount',
      type: 'charge.dispute.funds_withdrawn',
      object: dispute({ amount: 0 }),
      reason: 'missing_amount',
    },
  ])('ignored: $label → $reason', ({ type, object, reason }) => {
    expect(normalise(type, object)).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});
