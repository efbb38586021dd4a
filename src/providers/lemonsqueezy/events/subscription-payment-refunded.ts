/**
 * `subscription_payment_refunded`: a full or partial refund of one subscription invoice.
 * https://docs.lemonsqueezy.com/help/webhooks/event-types
 */
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore } from '../../provider-jobs.ts';
import { asRecord, readId } from '../../read-payload.ts';
import { createCumulativeRefund } from './cumulative-refund.ts';

export const subscriptionPaymentRefunded: EventHandler = (invoice, ctx) => {
  const attributes = asRecord(invoice.attributes);
  if (!attributes) return ignore('missing_attributes');
  // The first payment was recorded under its order (order-created.ts); the invoice does not name
  // that order, so its refund is applied from `order_refunded` instead.
  if (attributes.billing_reason === 'initial') return ignore('first_payment_refund_applied_by_order_refunded');
  const invoiceId = readId(invoice.id);
  if (!invoiceId) return ignore('missing_invoice_id');
  const job = createCumulativeRefund(`ls-invoice-${invoiceId}`, attributes, ctx);
  return job ? emit(job) : ignore('missing_amount');
};
