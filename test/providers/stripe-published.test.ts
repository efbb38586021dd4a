/**
 * Stripe events built from the objects Stripe publishes in `stripe/openapi` (fixtures/published):
 * invoice payments linking invoices to PaymentIntents, `charge.refunded`, disputes, basil invoices.
 */
import { describe, expect, test } from 'vitest';
import { createStripeAdapter } from '../../src/providers/stripe/adapter.ts';
import { CTX, NOW, PROGRAM_ID, TRACKER_METADATA } from './fixtures/clock.ts';
import { published } from './fixtures/published.ts';

const adapter = createStripeAdapter();
// Stripe's fixtures are test-mode objects (`livemode: false`); both flags follow the scenario.
const event = (type: string, object: Record<string, unknown>, livemode = true) =>
  published('stripe', 'event', { type, livemode, data: { object: { ...object, livemode } } });
const normalise = (type: string, object: Record<string, unknown>, livemode = true) =>
  adapter.normalise(event(type, object, livemode), CTX);
const receivedAt = NOW.toISOString();

describe('stripe: invoice_payment.paid links an invoice to its PaymentIntent', () => {
  const paid = (overrides: Record<string, unknown> = {}) =>
    published('stripe', 'invoice-payment', {
      invoice: 'in_1Pgc6tB7WZ01zgkWu9fdqL6I',
      status: 'paid',
      payment: { type: 'payment_intent', payment_intent: 'pi_3Basil01' },
      ...overrides,
    });

  test('a paid PaymentIntent payment → one link job, PaymentIntent → invoice id', () => {
    expect(normalise('invoice_payment.paid', paid())).toMatchObject({
      dedupeKey: 'evt_1Pgc76B7WZ01zgkWwyRHS12y',
      ignoredReason: null,
      jobs: [
        {
          kind: 'link',
          origin: 'provider',
          provider: 'stripe',
          programId: PROGRAM_ID,
          alias: 'pi_3Basil01',
          transactionId: 'in_1Pgc6tB7WZ01zgkWu9fdqL6I',
          test: false,
          receivedAt,
        },
      ],
    });
  });

  test.each([
    {
      label: 'the fixture as published (status "status", no PaymentIntent)',
      object: published('stripe', 'invoice-payment'),
      reason: 'not_paid',
    },
    {
      label: 'an out-of-band payment has no PaymentIntent',
      object: paid({ payment: { type: 'out_of_band_payment' } }),
      reason: 'not_a_payment_intent',
    },
    {
      label: 'a legacy charge payment',
      object: paid({ payment: { type: 'charge', charge: 'ch_1' } }),
      reason: 'not_a_payment_intent',
    },
    { label: 'an open payment not paid yet', object: paid({ status: 'open' }), reason: 'not_paid' },
    { label: 'no invoice', object: paid({ invoice: null }), reason: 'missing_invoice_id' },
  ])('ignored: $label → $reason', ({ object, reason }) => {
    expect(normalise('invoice_payment.paid', object)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('an expanded invoice object gives its id', () => {
    expect(
      normalise('invoice_payment.paid', paid({ invoice: { id: 'in_expanded', object: 'invoice' } })).jobs[0],
    ).toMatchObject({ transactionId: 'in_expanded' });
  });
});

describe('stripe: basil invoice.paid (published invoice object)', () => {
  const monthStart = 1_767_225_600; // 2026-01-01
  const basil = (lineOverrides: Record<string, unknown> = {}) => {
    const invoice = published('stripe', 'invoice');
    const [line] = (invoice.lines as { data: Record<string, unknown>[] }).data;
    return {
      ...invoice,
      status: 'paid',
      billing_reason: 'subscription_cycle',
      amount_paid: 1000,
      amount_remaining: 0,
      total_taxes: [
        {
          amount: 160,
          tax_behavior: 'inclusive',
          tax_rate_details: null,
          taxability_reason: 'standard_rated',
          taxable_amount: 840,
          type: 'tax_rate_details',
        },
      ],
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: TRACKER_METADATA, subscription: 'sub_basil' },
      },
      lines: {
        ...(invoice.lines as object),
        data: [
          {
            ...line,
            pricing: {
              type: 'price_details',
              price_details: { price: 'price_basil', product: 'prod_basil' },
              unit_amount_decimal: '1000',
            },
            period: { start: monthStart, end: monthStart + 31 * 86_400 },
            ...lineOverrides,
          },
        ],
      },
    };
  };

  test('keyed by the invoice id; subscription from parent; interval from the line period; product from price_details; tax from total_taxes', () => {
    const result = normalise('invoice.paid', basil());
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs).toEqual([
      expect.objectContaining({
        kind: 'sale',
        transactionId: 'in_1Pgc6tB7WZ01zgkWu9fdqL6I',
        providerPaymentId: 'in_1Pgc6tB7WZ01zgkWu9fdqL6I',
        amountCents: 1000,
        taxCents: 160,
        origin: 'provider',
        subscriptionId: 'sub_basil',
        subscriptionInterval: 'monthly',
        productId: 'prod_basil',
        isRecurring: true,
        customerKey: 'user_1234',
      }),
    ]);
  });

  test.each([
    { label: 'a 28-day February period → monthly', days: 28, interval: 'monthly' },
    { label: 'a 92-day quarter → quarterly', days: 92, interval: 'quarterly' },
    { label: 'a leap year → annual', days: 366, interval: 'annual' },
    { label: 'a 14-day proration → none', days: 14, interval: null },
  ])('$label', ({ days, interval }) => {
    const result = normalise('invoice.paid', basil({ period: { start: monthStart, end: monthStart + days * 86_400 } }));
    expect(result.jobs[0]).toMatchObject({ subscriptionInterval: interval });
  });
});

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
