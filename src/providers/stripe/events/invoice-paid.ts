/**
 * `invoice.paid`: records every subscription payment, the first one included (see the
 * transaction-id rule in ../adapter.ts). https://docs.stripe.com/api/invoices/object
 *
 * Two payload generations are read: before 2025-03-31.basil the invoice has `subscription`,
 * `subscription_details`, `payment_intent` and `tax`; from basil on they moved to
 * `parent.subscription_details`, `payments` and `total_taxes`, and lines name their price in
 * `pricing.price_details`. Webhook endpoints keep the API version they were created with, so both
 * shapes arrive in production.
 */
import type { SubscriptionInterval } from '../../../core/shared/vocabulary.ts';
import type { EventHandler } from '../../adapter.ts';
import { emit, ignore, providerSale, readPaymentBasics } from '../../provider-jobs.ts';
import { readStripeDiscountCodes } from '../discounts.ts';
import { asRecord, at, readId, readInteger, readString, type JsonObject } from '../../read-payload.ts';
import { computeIntervalFromPeriod, computeSubscriptionInterval } from '../../subscription-interval.ts';
import { readStripeAmount } from '../stripe-amounts.ts';

/** Handled `billing_reason`s → `isRecurring`. Manual and one-off invoices carry no tracker keys. */
const RECURRING_BY_BILLING_REASON: Readonly<Record<string, boolean>> = {
  subscription_create: false,
  subscription_cycle: true,
  // A mid-cycle upgrade charges a proration: a later payment on the same subscription.
  subscription_update: true,
};

export const invoicePaid: EventHandler = (invoice, ctx) => {
  const billingReason = readString(invoice.billing_reason) ?? '';
  if (!Object.hasOwn(RECURRING_BY_BILLING_REASON, billingReason)) return ignore('not_subscription_invoice');
  if (invoice.status !== undefined && invoice.status !== 'paid') return ignore('not_paid');

  const invoiceId = readId(invoice.id);
  if (!invoiceId) return ignore('missing_invoice_id');
  const details = asRecord(invoice.subscription_details) ?? asRecord(at(invoice, 'parent', 'subscription_details'));
  // The spec repeats the tracker keys in the subscription metadata, which Stripe copies here.
  const amount = readStripeAmount(invoice.amount_paid, invoice.currency);
  const tax = readTaxCents(invoice);
  if (amount === 'inexact' || tax === 'inexact') return ignore('unsupported_minor_units');
  const basics = readPaymentBasics(amount, invoice.currency, [details?.metadata, invoice.metadata], ctx.programId);
  if (!basics.ok) return basics.outcome;
  const line = readSingleLine(invoice);
  const paymentIntentId = readPaymentIntentId(invoice);

  return emit(
    providerSale(ctx, basics, {
      transactionId: paymentIntentId ?? invoiceId,
      providerPaymentId: invoiceId,
      taxCents: tax,
      saleType: 'subscription',
      isRecurring: RECURRING_BY_BILLING_REASON[billingReason] === true,
      subscriptionId: readId(invoice.subscription) ?? readId(details?.subscription),
      subscriptionInterval: line ? readLineInterval(line) : null,
      productId: line
        ? (readId(at(line, 'price', 'product')) ?? readId(at(line, 'pricing', 'price_details', 'product')))
        : null,
      couponCodes: readStripeDiscountCodes(invoice.discounts, invoice.discount),
      providerCustomerId: readId(invoice.customer) ?? undefined,
      // Recorded under the invoice id: core may ask Stripe which PaymentIntent paid it (alias-lookup.ts).
      aliasLookup: paymentIntentId ? null : { provider: 'stripe', invoiceId },
    }),
  );
};

/** Pre-basil `payment_intent`, else a paid entry of basil's `payments` list when included. */
function readPaymentIntentId(invoice: JsonObject): string | null {
  const legacy = readId(invoice.payment_intent);
  if (legacy) return legacy;
  const payments = at(invoice, 'payments', 'data');
  if (!Array.isArray(payments)) return null;
  for (const payment of payments) {
    if (at(payment, 'status') !== 'paid') continue;
    const id = readId(at(payment, 'payment', 'payment_intent'));
    if (id) return id;
  }
  return null;
}

function readTaxCents(invoice: JsonObject): number | null | 'inexact' {
  const legacy = readInteger(invoice.tax);
  if (legacy !== null) return readStripeAmount(legacy, invoice.currency);
  if (!Array.isArray(invoice.total_taxes)) return null;
  let sum = 0;
  for (const tax of invoice.total_taxes) {
    const amount = readInteger(at(tax, 'amount'));
    if (amount === null) return null;
    sum += amount;
  }
  return readStripeAmount(sum, invoice.currency);
}

/** Interval and product only make sense when the invoice bills exactly one line. */
function readSingleLine(invoice: JsonObject): JsonObject | null {
  const lines = at(invoice, 'lines', 'data');
  return Array.isArray(lines) && lines.length === 1 ? asRecord(lines[0]) : null;
}

/**
 * Pre-basil lines carry `price.recurring` (or the older `plan`). Basil lines carry only
 * `pricing.price_details` (price and product ids, no interval), so the interval is read from the
 * line's billing `period` instead: a subscription line bills exactly one interval.
 */
function readLineInterval(line: JsonObject): SubscriptionInterval | null {
  const recurring = asRecord(at(line, 'price', 'recurring')) ?? asRecord(line.plan);
  if (recurring) return computeSubscriptionInterval(recurring.interval, recurring.interval_count);
  return computeIntervalFromPeriod(readInteger(at(line, 'period', 'start')), readInteger(at(line, 'period', 'end')));
}
