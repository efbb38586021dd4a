import { describe, expect, test } from 'vitest';
import type { RefundJob } from '../../src/core/jobs/refund-job.ts';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { createStripeAdapter } from '../../src/providers/stripe/adapter.ts';
import { CTX, NOW, NOW_SECONDS, TRACKER_METADATA } from './fixtures/clock.ts';
import { basilInvoice, checkoutSession, legacyInvoice, stripeEvent, stripeRefund } from './fixtures/stripe.ts';

const adapter = createStripeAdapter();
const normalise = (event: unknown) => adapter.normalise(event, CTX);

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

describe('stripe normalise: subscription invoices', () => {
  test.each([
    {
      label: 'first invoice, pre-basil payload → PaymentIntent id, not recurring, interval from the price',
      invoice: legacyInvoice(),
      job: {
        transactionId: 'pi_3QxUnitInvoicePI01',
        providerPaymentId: 'in_1QxUnitInvoice01',
        isRecurring: false,
        saleType: 'subscription',
        subscriptionId: 'sub_1QxUnitSub01',
        subscriptionInterval: 'monthly',
        productId: 'prod_RqUnit',
        taxCents: 0,
        customerKey: 'user_1234',
      },
    },
    {
      label:
        'renewal, basil payload without PaymentIntent → invoice id, recurring, keys from parent.subscription_details',
      invoice: basilInvoice(),
      job: {
        transactionId: 'in_1QxUnitInvoice02',
        isRecurring: true,
        currency: 'EUR',
        subscriptionId: 'sub_1QxUnitSub01',
        subscriptionInterval: null,
        productId: 'prod_RqUnit',
        taxCents: 463,
        clickId: 'clk_7Hq2x',
        // Recorded under the invoice id: core may ask Stripe for its PaymentIntent (alias-lookup.ts).
        aliasLookup: { provider: 'stripe', invoiceId: 'in_1QxUnitInvoice02' },
      },
    },
    {
      label: 'basil payload with payments expanded → the paid PaymentIntent id',
      invoice: basilInvoice({
        payments: {
          object: 'list',
          data: [
            { id: 'inpay_1', status: 'canceled', payment: { type: 'payment_intent', payment_intent: 'pi_failed' } },
            { id: 'inpay_2', status: 'paid', payment: { type: 'payment_intent', payment_intent: 'pi_paid' } },
          ],
        },
      }),
      job: { transactionId: 'pi_paid', aliasLookup: null },
    },
    {
      label: 'proration charge after an upgrade → recurring',
      invoice: legacyInvoice({ billing_reason: 'subscription_update' }),
      job: { isRecurring: true },
    },
    {
      label: 'quarterly price → quarterly interval',
      invoice: legacyInvoice({ lines: { data: [{ price: { recurring: { interval: 'month', interval_count: 3 } } }] } }),
      job: { subscriptionInterval: 'quarterly' },
    },
  ])('$label', ({ invoice, job }) => {
    const result = normalise(stripeEvent('invoice.paid', invoice));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject({ kind: 'sale', ...job });
  });

  test.each([
    { label: 'trial or fully discounted period', invoice: basilInvoice({ amount_paid: 0 }), reason: 'zero_amount' },
    {
      label: 'one-off manual invoice',
      invoice: basilInvoice({ billing_reason: 'manual' }),
      reason: 'not_subscription_invoice',
    },
    {
      label: 'subscription metadata tagged for another program',
      invoice: legacyInvoice({ subscription_details: { metadata: { program_id: '7' } } }),
      reason: 'program_mismatch',
    },
    { label: 'payload status not paid', invoice: basilInvoice({ status: 'open' }), reason: 'not_paid' },
  ])('ignored: $label → $reason', ({ invoice, reason }) => {
    expect(normalise(stripeEvent('invoice.paid', invoice))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('stripe normalise: refunds', () => {
  test('a succeeded refund becomes a per-refund job keyed by its own id', () => {
    const expected: RefundJob = {
      kind: 'refund',
      origin: 'provider',
      programId: 42,
      transactionId: 'pi_3QxUnitPaymentIntent01',
      amount: { type: 'per_refund', cents: 1000 },
      refundId: 're_3QxUnitRefund01',
      refundReason: 'requested_by_customer',
      reason: 'refund',
      saleAlias: null,
      // A basil invoice's sale can be asked for by the PaymentIntent (refund-sale-lookup.ts).
      saleLookup: { provider: 'stripe', paymentIntentId: 'pi_3QxUnitPaymentIntent01' },
      test: false,
      receivedAt: NOW.toISOString(),
    };
    expect(normalise(stripeEvent('refund.created', stripeRefund())).jobs).toEqual([expected]);
  });

  test.each([
    {
      label: 'the merchant’s metadata refund_reason wins over Stripe’s code',
      refund: stripeRefund({ metadata: { refund_reason: 'Duplicate order' } }),
      job: { refundReason: 'Duplicate order' },
    },
    {
      label: 'refund.updated to succeeded is applied (the core skips a refund id twice)',
      type: 'refund.updated',
      refund: stripeRefund(),
      job: { refundId: 're_3QxUnitRefund01' },
    },
  ])('$label', ({ type, refund, job }) => {
    expect(normalise(stripeEvent(type ?? 'refund.created', refund)).jobs[0]).toMatchObject(job);
  });

  test.each([
    { label: 'refund still pending', refund: stripeRefund({ status: 'pending' }), reason: 'refund_not_succeeded' },
    { label: 'refund failed', refund: stripeRefund({ status: 'failed' }), reason: 'refund_not_succeeded' },
    {
      label: 'legacy charge without PaymentIntent',
      refund: stripeRefund({ payment_intent: null }),
      reason: 'missing_payment_intent',
    },
    { label: 'no amount', refund: stripeRefund({ amount: undefined }), reason: 'missing_amount' },
  ])('ignored: $label → $reason', ({ refund, reason }) => {
    expect(normalise(stripeEvent('refund.created', refund))).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test.each([
    {
      label: 'one-off checkout',
      sale: stripeEvent('checkout.session.completed', checkoutSession()),
      paymentIntent: 'pi_3QxUnitPaymentIntent01',
    },
    {
      label: 'pre-basil subscription invoice',
      sale: stripeEvent('invoice.paid', legacyInvoice()),
      paymentIntent: 'pi_3QxUnitInvoicePI01',
    },
  ])('a refund finds its sale: $label and its refund share the PaymentIntent id', ({ sale, paymentIntent }) => {
    const saleJob = normalise(sale).jobs[0];
    const refundJob = normalise(stripeEvent('refund.created', stripeRefund({ payment_intent: paymentIntent }))).jobs[0];
    expect(refundJob?.transactionId).toBe(saleJob?.transactionId);
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
    const result = adapter.normalise(stripeEvent('refund.created', stripeRefund()), { ...CTX, testConnection: true });
    expect(result.jobs[0]?.test).toBe(true);
  });
});
