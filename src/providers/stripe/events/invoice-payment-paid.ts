/**
 * `invoice_payment.paid`: which PaymentIntent paid which invoice.
 * https://docs.stripe.com/api/invoice-payment/object
 *
 * From API version 2025-03-31.basil an invoice no longer names its PaymentIntent, so its sale is
 * recorded under the invoice id (invoice-paid.ts), while refunds and disputes name only the
 * PaymentIntent. This event is where Stripe links the two: it becomes a link job, stored whether
 * the sale or the refund arrives first, so the refund finds the sale either way.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerLink } from '../../provider-jobs.ts';
import { asRecord, readId, readString } from '../../read-payload.ts';

export const invoicePaymentPaid: EventHandler = (invoicePayment, ctx) => {
  if (invoicePayment.status !== undefined && invoicePayment.status !== 'paid') return ignore('not_paid');
  const invoiceId = readId(invoicePayment.invoice);
  if (!invoiceId) return ignore('missing_invoice_id');
  const payment = asRecord(invoicePayment.payment);
  // `charge` (legacy Charges API) and `out_of_band` payments have no PaymentIntent to refund by.
  if (readString(payment?.type) !== 'payment_intent') return ignore('not_a_payment_intent');
  const paymentIntentId = readId(payment?.payment_intent);
  if (!paymentIntentId) return ignore('missing_payment_intent');
  return emit(providerLink(ctx, { alias: paymentIntentId, transactionId: invoiceId }));
};
