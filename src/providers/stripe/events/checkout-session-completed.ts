/**
 * `checkout.session.completed` (and `checkout.session.async_payment_succeeded`, same payload):
 * records one-off payments. https://docs.stripe.com/api/checkout/sessions/object
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { at, readId, readString } from '../../read-payload.ts';
import { readStripeDiscountCodes } from '../discounts.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

export const checkoutSessionCompleted: EventHandler = (session, ctx) => {
  const mode = readString(session.mode);
  // A subscription session carries no PaymentIntent (`payment_intent` is null); its first payment
  // is recorded by `invoice.paid` under the rule in ../adapter.ts, so recording it here would
  // create the same sale twice under two ids.
  if (mode === 'subscription') return ignore('subscription_recorded_by_invoice_paid');
  if (mode !== 'payment') return ignore('unhandled_checkout_mode');
  // Delayed methods complete the session with `unpaid`; `async_payment_succeeded` follows.
  if (session.payment_status !== 'paid') return ignore('not_paid');

  const paymentIntentId = readId(session.payment_intent);
  if (!paymentIntentId) return ignore('missing_payment_intent');
  const amount = readStripeAmount(session.amount_total, session.currency);
  const tax = readStripeAmount(at(session, 'total_details', 'amount_tax'), session.currency);
  if (amount === 'inexact' || tax === 'inexact') return ignore('unsupported_minor_units');
  const basics = readPaymentBasics(amount, session.currency, [session.metadata], ctx.programId);
  if (!basics.ok) return basics.outcome;

  return emit(
    providerSale(ctx, basics, {
      transactionId: paymentIntentId,
      providerPaymentId: paymentIntentId,
      taxCents: tax,
      couponCodes: readStripeDiscountCodes(session.discounts),
      providerCustomerId: readId(session.customer) ?? undefined,
    }),
  );
};
