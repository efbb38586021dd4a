/**
 * `subscription_payment_success`: a paid subscription invoice.
 * https://docs.lemonsqueezy.com/api/subscription-invoices/the-subscription-invoice-object
 *
 * `billing_reason` tells which payment it is: `initial` is the first payment, already recorded
 * by `order_created` for the same checkout (a second sale under the invoice id would double the
 * commission), so only `renewal` and `updated` (a plan change charge) are recorded here.
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { asRecord, readId, readInteger, readString } from '../../read-payload.ts';

const RECORDED_BILLING_REASONS = new Set(['renewal', 'updated']);

export const subscriptionPaymentSuccess: EventHandler = (invoice, ctx) => {
  const attributes = asRecord(invoice.attributes);
  if (!attributes) return ignore('missing_attributes');
  const billingReason = readString(attributes.billing_reason);
  if (billingReason === 'initial') return ignore('first_payment_recorded_by_order_created');
  if (!billingReason || !RECORDED_BILLING_REASONS.has(billingReason)) return ignore('unhandled_billing_reason');
  if (attributes.status !== 'paid') return ignore('not_paid');
  const invoiceId = readId(invoice.id);
  if (!invoiceId) return ignore('missing_invoice_id');
  // Checkout custom data is repeated on subscription events (meta.custom_data).
  const basics = readPaymentBasics(
    readInteger(attributes.total),
    attributes.currency,
    [ctx.envelopeMetadata],
    ctx.programId,
  );
  if (!basics.ok) return basics.outcome;

  return emit(
    providerSale(ctx, basics, {
      transactionId: `ls-invoice-${invoiceId}`,
      providerPaymentId: invoiceId,
      taxCents: readInteger(attributes.tax),
      saleType: 'subscription',
      isRecurring: true,
      subscriptionId: readId(attributes.subscription_id),
    }),
  );
};
