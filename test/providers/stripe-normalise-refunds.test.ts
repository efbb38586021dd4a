/** The Stripe adapter on refunds (fixture objects). */
import { describe, expect, test } from 'vitest';
import type { RefundJob } from '../../src/core/jobs/refund-job.ts';
import { NOW } from './fixtures/clock.ts';
import { normaliseStripe as normalise } from './fixtures/normalise.ts';
import { checkoutSession, legacyInvoice, stripeEvent, stripeRefund } from './fixtures/stripe.ts';

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
