/**
 * Stripe invoice events built from the objects Stripe publishes in `stripe/openapi`
 * (fixtures/published): invoice payments linking invoices to PaymentIntents, basil invoices.
 */
import { describe, expect, test } from 'vitest';
import { NOW, PROGRAM_ID, TRACKER_METADATA } from './fixtures/clock.ts';
import { normalisePublishedStripe as normalise } from './fixtures/normalise.ts';
import { published } from './fixtures/published.ts';

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
