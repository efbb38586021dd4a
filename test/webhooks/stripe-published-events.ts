/**
 * Stripe events on current API versions, built from the objects Stripe publishes (stripe/openapi
 * fixtures), and the delivery steps the Stripe end-to-end files share (stripe-basil-subscriptions,
 * stripe-charge-refunds-and-disputes).
 */
import { expect } from 'vitest';
import type { Fixture } from '../helpers/harness.ts';
import { published } from '../providers/fixtures/published.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { basilEvent, keysOf } from './scenario-steps.ts';
import type { WebhookHarness } from './webhook-harness.ts';

type Json = Record<string, unknown>;
const event = basilEvent;

/** Delivery steps against one harness: deliver and wait, a fresh program and customer, a checkout sale. */
export function stripeDeliverySteps(w: WebhookHarness) {
  async function deliver(programId: number, body: Json, status = 'processed') {
    const res = await w.send(programId, body);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }

  async function setup() {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    return { f, keys: keysOf(f, customer) };
  }

  /** A sale recorded with a checkout (PaymentIntent id) for a fresh customer. */
  async function checkoutSale(f: Fixture, ref: string, amountCents: number) {
    const customer = await w.newCustomer(f);
    await deliver(f.programId, stripeKit.payment({ ref, amountCents, keys: keysOf(f, customer) }).event);
    return `pi_${ref}`;
  }

  return { deliver, setup, checkoutSale };
}

const metadataOf = (keys: ReturnType<typeof keysOf>) => ({
  tracker_click_id: keys.clickId,
  tracker_customer_key: keys.customerKey,
  program_id: String(keys.programId),
});

/** A paid basil invoice: no PaymentIntent anywhere, tax in `total_taxes`. */
export function basilInvoicePaid(ref: string, keys: ReturnType<typeof keysOf>, amountPaid: number, tax: number) {
  const invoice = published('stripe', 'invoice');
  return event('invoice.paid', {
    ...invoice,
    id: `in_${ref}`,
    status: 'paid',
    billing_reason: 'subscription_create',
    amount_due: amountPaid,
    amount_paid: amountPaid,
    amount_remaining: 0,
    total: amountPaid,
    total_taxes: [
      {
        amount: tax,
        tax_behavior: 'exclusive',
        tax_rate_details: null,
        taxability_reason: 'standard_rated',
        taxable_amount: amountPaid - tax,
        type: 'tax_rate_details',
      },
    ],
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { metadata: metadataOf(keys), subscription: `sub_${ref}` },
    },
  });
}
export const invoicePaymentPaid = (ref: string) =>
  event(
    'invoice_payment.paid',
    published('stripe', 'invoice-payment', {
      id: `inpay_${ref}`,
      invoice: `in_${ref}`,
      status: 'paid',
      payment: { type: 'payment_intent', payment_intent: `pi_${ref}` },
    }),
  );
export const refundObject = (ref: string, id: string, amount: number) =>
  published('stripe', 'refund', { id, amount, payment_intent: `pi_${ref}`, charge: `ch_${ref}`, status: 'succeeded' });
export const chargeRefunded = (ref: string, amount: number, refunds: Json[]) => {
  const charge = published('stripe', 'charge');
  return event('charge.refunded', {
    ...charge,
    id: `ch_${ref}`,
    payment_intent: `pi_${ref}`,
    amount,
    amount_captured: amount,
    refunded: true,
    amount_refunded: refunds.reduce((sum, r) => sum + (r.amount as number), 0),
    refunds: { ...(charge.refunds as object), data: refunds },
  });
};
export const dispute = (type: string, ref: string, status: string, amount: number) =>
  event(
    type,
    published('stripe', 'dispute', {
      id: `dp_${ref}`,
      charge: `ch_${ref}`,
      payment_intent: `pi_${ref}`,
      amount,
      status,
    }),
  );
