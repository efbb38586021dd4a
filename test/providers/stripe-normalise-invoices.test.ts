/** The Stripe adapter on subscription invoices, legacy and basil (fixture objects). */
import { describe, expect, test } from 'vitest';
import { normaliseStripe as normalise } from './fixtures/normalise.ts';
import { basilInvoice, legacyInvoice, stripeEvent } from './fixtures/stripe.ts';

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
