/**
 * `subscription_payment_success`: a paid subscription invoice.
 * https://docs.lemonsqueezy.com/api/subscription-invoices/the-subscription-invoice-object
 *
 * `billing_reason` tells which payment it is: `initial` is the first payment, already recorded
 * by `order_created` for the same checkout (a second sale under the invoice id would double the
 * commission), so only `renewal` and `updated` (a plan change charge) are recorded here.
 */
import type { EventHandler } from '../../adapter.ts';
import { ignore } from '../../provider-jobs.ts';
import { asRecord, readId, readString } from '../../read-payload.ts';
import { paidSale } from './paid-sale.ts';

const RECORDED_BILLING_REASONS = new Set(['renewal', 'updated']);

export const subscriptionPaymentSuccess: EventHandler = (invoice, ctx) => {
  const attributes = asRecord(invoice.attributes);
  if (!attributes) return ignore('missing_attributes');
  const billingReason = readString(attributes.billing_reason);
  if (billingReason === 'initial') return ignore('first_payment_recorded_by_order_created');
  if (!billingReason || !RECORDED_BILLING_REASONS.has(billingReason)) return ignore('unhandled_billing_reason');
  return paidSale(invoice, attributes, ctx, 'invoice', () => ({
    saleType: 'subscription',
    isRecurring: true,
    subscriptionId: readId(attributes.subscription_id),
  }));
};
