/**
 * Core's `lookupPaymentAlias` port for Stripe: which PaymentIntent paid a basil invoice, through
 * the official SDK's Invoice Payments list, `GET /v1/invoice_payments?invoice=in_...`
 * (https://docs.stripe.com/api/invoice-payment/list). Each item is an `invoice_payment`
 * (https://docs.stripe.com/api/invoice-payment/object): `status` `paid`, and `payment.type`
 * `payment_intent` with the id in `payment.payment_intent`, are what a refund can name.
 * The SDK does not retry here (`maxNetworkRetries` 0): the webhook job is retried instead, with
 * its backoff, so a slow Stripe never holds a worker for long.
 */
import Stripe from 'stripe';
import { RetryableError } from '../../core/errors.ts';
import type { AliasLookupResult, LookupPaymentAlias } from '../../core/alias-lookup.ts';
import { createStripeClients } from './client.ts';

export const STRIPE_LOOKUP_TIMEOUT_MS = 5_000;

/** Statuses that say the key may not read the invoice, or that it does not exist: asking again would not help. */
const REFUSED = new Set([400, 401, 403, 404]);

/**
 * The lookup against `apiBase`. Network errors, timeouts, 429, 5xx and other answers throw
 * `RetryableError`; 400/401/403/404 answer `refused`. The key goes only into the request's
 * Authorization header (the SDK's); errors never include it.
 */
export function createStripeInvoicePaymentLookup(o: {
  apiBase: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}): LookupPaymentAlias {
  const clientFor = createStripeClients({
    apiBase: o.apiBase,
    maxNetworkRetries: o.maxNetworkRetries ?? 0,
    timeoutMs: o.timeoutMs ?? STRIPE_LOOKUP_TIMEOUT_MS,
  });
  return async (lookup, apiKey): Promise<AliasLookupResult> => {
    let page: Stripe.ApiList<Stripe.InvoicePayment>;
    try {
      page = await clientFor(apiKey).invoicePayments.list({ invoice: lookup.invoiceId, limit: 100 });
    } catch (err) {
      const status = err instanceof Stripe.errors.StripeError ? err.statusCode : undefined;
      if (status !== undefined && REFUSED.has(status)) return { kind: 'refused', status };
      const why = status !== undefined ? `answered ${status}` : `failed: ${(err as Error).message}`.slice(0, 300);
      throw new RetryableError(`Stripe invoice payments lookup of ${lookup.invoiceId} ${why}`);
    }
    if (!Array.isArray(page?.data))
      throw new RetryableError(`Stripe invoice payments lookup of ${lookup.invoiceId}: unexpected answer`);
    const aliases: string[] = [];
    for (const item of page.data) {
      // The filter should return this invoice's payments only; anything else is not trusted.
      const invoice = typeof item.invoice === 'string' ? item.invoice : item.invoice?.id;
      if (invoice !== lookup.invoiceId || item.status !== 'paid') continue;
      if (item.payment?.type !== 'payment_intent') continue;
      const pi = item.payment.payment_intent;
      const id = typeof pi === 'string' ? pi : pi?.id;
      if (id) aliases.push(id);
    }
    return { kind: 'found', aliases: [...new Set(aliases)] };
  };
}
