/**
 * Core's `lookupPaymentAlias` and `lookupPaidSale` ports for Stripe, through the official SDK's
 * Invoice Payments list (https://docs.stripe.com/api/invoice-payment/list). Each item is an
 * `invoice_payment` (https://docs.stripe.com/api/invoice-payment/object): `status` `paid`, and
 * `payment.type` `payment_intent` with the id in `payment.payment_intent`, link a basil invoice to
 * the PaymentIntent its refunds name. Asked both ways:
 * - which PaymentIntents paid an invoice: `GET /v1/invoice_payments?invoice=in_...`;
 * - which invoices a PaymentIntent paid:
 *   `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=pi_...`.
 * The SDK does not retry here (`maxNetworkRetries` 0): the webhook job is retried instead, with
 * its backoff, so a slow Stripe never holds a worker for long.
 */
import Stripe from 'stripe';
import { RetryableError } from '../../core/shared/errors.ts';
import type { LookupPaymentAlias, LookupPaidSale } from '../../core/ports.ts';
import { createStripeClients } from './client.ts';

export const STRIPE_LOOKUP_TIMEOUT_MS = 5_000;

/** Statuses that say the key may not read invoices, or that the object does not exist: asking again would not help. */
const REFUSED = new Set([400, 401, 403, 404]);

type Options = { apiBase: string; timeoutMs?: number; maxNetworkRetries?: number };
type Paid = { invoiceId: string; paymentIntentId: string };
type Listed = { kind: 'found'; paid: Paid[] } | { kind: 'refused'; status: number };

/**
 * The paid PaymentIntent payments the list answers. Network errors, timeouts, 429, 5xx and other
 * answers throw `RetryableError`; 400/401/403/404 answer `refused`. The key goes only into the
 * request's Authorization header (the SDK's); errors never include it.
 */
function createLister(o: Options) {
  const clientFor = createStripeClients({
    apiBase: o.apiBase,
    maxNetworkRetries: o.maxNetworkRetries ?? 0,
    timeoutMs: o.timeoutMs ?? STRIPE_LOOKUP_TIMEOUT_MS,
  });
  return async (apiKey: string, params: Stripe.InvoicePaymentListParams, what: string): Promise<Listed> => {
    let page: Stripe.ApiList<Stripe.InvoicePayment>;
    try {
      page = await clientFor(apiKey).invoicePayments.list({ ...params, limit: 100 });
    } catch (err) {
      const status = err instanceof Stripe.errors.StripeError ? err.statusCode : undefined;
      if (status !== undefined && REFUSED.has(status)) return { kind: 'refused', status };
      const why = status !== undefined ? `answered ${status}` : `failed: ${(err as Error).message}`.slice(0, 300);
      throw new RetryableError(`Stripe invoice payments lookup of ${what} ${why}`);
    }
    if (!Array.isArray(page?.data))
      throw new RetryableError(`Stripe invoice payments lookup of ${what}: unexpected answer`);
    const paid: Paid[] = [];
    for (const item of page.data) {
      if (item.status !== 'paid' || item.payment?.type !== 'payment_intent') continue;
      const invoiceId = typeof item.invoice === 'string' ? item.invoice : item.invoice?.id;
      const pi = item.payment.payment_intent;
      const paymentIntentId = typeof pi === 'string' ? pi : pi?.id;
      if (invoiceId && paymentIntentId) paid.push({ invoiceId, paymentIntentId });
    }
    return { kind: 'found', paid };
  };
}

/** The PaymentIntents that paid an invoice (core's `lookupPaymentAlias`). */
export function createStripeInvoicePaymentLookup(o: Options): LookupPaymentAlias {
  const list = createLister(o);
  return async (lookup, apiKey) => {
    const listed = await list(apiKey, { invoice: lookup.invoiceId }, lookup.invoiceId);
    if (listed.kind === 'refused') return listed;
    // The filter should return this invoice's payments only; anything else is not trusted.
    const ids = listed.paid.filter((p) => p.invoiceId === lookup.invoiceId).map((p) => p.paymentIntentId);
    return { kind: 'found', aliases: [...new Set(ids)] };
  };
}

/** The invoices a PaymentIntent paid (core's `lookupPaidSale`). */
export function createStripePaidInvoiceLookup(o: Options): LookupPaidSale {
  const list = createLister(o);
  return async (lookup, apiKey) => {
    const pi = lookup.paymentIntentId;
    const listed = await list(apiKey, { payment: { type: 'payment_intent', payment_intent: pi } }, pi);
    if (listed.kind === 'refused') return listed;
    const ids = listed.paid.filter((p) => p.paymentIntentId === pi).map((p) => p.invoiceId);
    return { kind: 'found', transactionIds: [...new Set(ids)] };
  };
}
