/** The Stripe adapter on checkout sales and the event envelope (fixture objects). */
import { describe, expect, test } from 'vitest';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { NOW, NOW_SECONDS, TRACKER_METADATA } from './fixtures/clock.ts';
import { normaliseStripe as normalise } from './fixtures/normalise.ts';
import { checkoutSession, stripeEvent, stripeRefund } from './fixtures/stripe.ts';

describe('stripe normalise: sales', () => {
  test('a paid one-off checkout becomes one sale under its PaymentIntent id', () => {
    const result = normalise(stripeEvent('checkout.session.completed', checkoutSession()));
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: 'pi_3QxUnitPaymentIntent01',
      amountCents: 4900,
      taxCents: 400,
      currency: 'USD',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: null,
      occurredAt: new Date((NOW_SECONDS - 2) * 1000).toISOString(),
      provider: 'stripe',
      providerPaymentId: 'pi_3QxUnitPaymentIntent01',
      providerCustomerId: 'cus_RqUnit01',
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
    expect(result).toEqual({
      dedupeKey: 'evt_1QxUnit2eZvKYlo2C0ffee01',
      eventType: 'checkout.session.completed',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test.each([
    {
      label: 'expanded payment_intent object → its id',
      object: checkoutSession({ payment_intent: { id: 'pi_expanded', object: 'payment_intent' } }),
      job: { transactionId: 'pi_expanded' },
    },
    {
      label: 'delayed method paid later (async_payment_succeeded) → sale',
      type: 'checkout.session.async_payment_succeeded',
      object: checkoutSession(),
      job: { transactionId: 'pi_3QxUnitPaymentIntent01' },
    },
    {
      label: 'test-mode event (livemode false) → test sale',
      event: { livemode: false },
      object: checkoutSession({ livemode: false }),
      job: { test: true },
    },
    {
      label: 'metadata values are trimmed; empty ones become null',
      object: checkoutSession({
        metadata: { tracker_click_id: '  clk_1 ', tracker_customer_key: '   ', program_id: '42' },
      }),
      job: { clickId: 'clk_1', customerKey: null, visitorId: null },
    },
    {
      label: 'no metadata at all → sale without attribution keys (core decides)',
      object: checkoutSession({ metadata: {} }),
      job: { clickId: null, customerKey: null },
    },
    {
      label: 'lower-case currency is upper-cased for the core',
      object: checkoutSession({ currency: 'vnd' }),
      job: { currency: 'VND' },
    },
  ])('$label', ({ type, object, event, job }) => {
    const result = normalise(stripeEvent(type ?? 'checkout.session.completed', object, event));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs).toHaveLength(1);
    expect(result.jobs[0]).toMatchObject(job);
  });

  test.each([
    { label: 'delayed method not paid yet', object: checkoutSession({ payment_status: 'unpaid' }), reason: 'not_paid' },
    {
      label: 'subscription checkout: no PaymentIntent, invoice.paid records it',
      object: checkoutSession({ mode: 'subscription', payment_intent: null, invoice: 'in_1', subscription: 'sub_1' }),
      reason: 'subscription_recorded_by_invoice_paid',
    },
    {
      label: 'setup-mode checkout charges nothing',
      object: checkoutSession({ mode: 'setup' }),
      reason: 'unhandled_checkout_mode',
    },
    {
      label: 'checkout tagged for another program',
      object: checkoutSession({ metadata: { ...TRACKER_METADATA, program_id: '7' } }),
      reason: 'program_mismatch',
    },
    { label: 'amount_total missing', object: checkoutSession({ amount_total: null }), reason: 'missing_amount' },
    {
      label: 'amount_total as a float string',
      object: checkoutSession({ amount_total: '49.00' }),
      reason: 'missing_amount',
    },
    { label: '100 % discount', object: checkoutSession({ amount_total: 0 }), reason: 'zero_amount' },
    { label: 'no currency', object: checkoutSession({ currency: undefined }), reason: 'missing_currency' },
  ])('ignored: $label → $reason', ({ object, reason }) => {
    expect(normalise(stripeEvent('checkout.session.completed', object))).toMatchObject({
      jobs: [],
      ignoredReason: reason,
    });
  });
});

describe('stripe normalise: envelope', () => {
  test.each([
    {
      label: 'unknown event type',
      event: stripeEvent('customer.created', { id: 'cus_1' }),
      reason: 'unhandled_event_type',
    },
    {
      label: 'charge.refunded without a PaymentIntent',
      event: stripeEvent('charge.refunded', { amount_refunded: 500 }),
      reason: 'missing_payment_intent',
    },
    {
      label: 'handled type without data.object',
      event: { id: 'evt_1', type: 'invoice.paid', data: {} },
      reason: 'missing_event_object',
    },
    { label: 'not an object at all', event: 'evt', reason: 'unhandled_event_type' },
  ])('$label → ignored $reason', ({ event, reason }) => {
    expect(normalise(event)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('dedupe key is the event id with any ":" replaced', () => {
    expect(normalise(stripeEvent('customer.created', {}, { id: 'evt:1:2' })).dedupeKey).toBe('evt-1-2');
  });

  test('an event without id still gets a stable, colon-free dedupe key', () => {
    const event = stripeEvent('refund.created', stripeRefund(), { id: undefined });
    expect(normalise(event).dedupeKey).toBe(normalise(structuredClone(event)).dedupeKey);
    expect(normalise(event).dedupeKey).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  test('a test connection marks every job as test, whatever livemode says', () => {
    const result = normalise(stripeEvent('refund.created', stripeRefund()), { testConnection: true });
    expect(result.jobs[0]?.test).toBe(true);
  });
});
