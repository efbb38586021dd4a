import type { WebhookProvider } from '../core/shared/vocabulary.ts';
import type { ProviderAdapter } from './adapter.ts';
import { createCreemAdapter } from './creem/adapter.ts';
import { createDodoAdapter } from './dodo/adapter.ts';
import { createLemonSqueezyAdapter } from './lemonsqueezy/adapter.ts';
import { createPaddleAdapter } from './paddle/adapter.ts';
import { createPolarAdapter } from './polar/adapter.ts';
import { createStripeAdapter } from './stripe/adapter.ts';
import { createPayosAdapter } from './payos/adapter.ts';
import { createSepayAdapter } from './sepay/adapter.ts';
import type { LookupDiscountCodes, LookupPaidSale, LookupPaymentAlias } from '../core/ports.ts';
import { createLemonSqueezyDiscountLookup } from './lemonsqueezy/discount-redemptions.ts';
import { createStripeInvoicePaymentLookup, createStripePaidInvoiceLookup } from './stripe/invoice-payments.ts';

export type ProviderAdapters = Record<WebhookProvider, ProviderAdapter>;

/** One adapter per webhook provider; built once by the app context and passed down. */
export function createProviderAdapters(): ProviderAdapters {
  return {
    stripe: createStripeAdapter(),
    paddle: createPaddleAdapter(),
    lemonsqueezy: createLemonSqueezyAdapter(),
    polar: createPolarAdapter(),
    dodo: createDodoAdapter(),
    creem: createCreemAdapter(),
    sepay: createSepayAdapter(),
    payos: createPayosAdapter(),
  };
}

/**
 * Core's `lookupDiscountCodes` port: each provider whose sales can carry a `couponLookup` answers
 * it with its own API (the only provider calls the service makes).
 */
export function createDiscountLookup(o: { lemonsqueezyApiBase: string }): LookupDiscountCodes {
  const byProvider = { lemonsqueezy: createLemonSqueezyDiscountLookup({ baseUrl: o.lemonsqueezyApiBase }) };
  return (lookup, apiKey) => byProvider[lookup.provider](lookup, apiKey);
}

/**
 * Core's `lookupPaymentAlias` port: each provider whose sales can carry an `aliasLookup` answers it
 * with its own API (Stripe: which PaymentIntent paid a basil invoice).
 */
export function createPaymentAliasLookup(o: { stripeApiBase: string }): LookupPaymentAlias {
  const byProvider = { stripe: createStripeInvoicePaymentLookup({ apiBase: o.stripeApiBase }) };
  return (lookup, apiKey) => byProvider[lookup.provider](lookup, apiKey);
}

/** Core's `lookupPaidSale` port: the reverse question, for a refund whose sale is not found. */
export function createPaidSaleLookup(o: { stripeApiBase: string }): LookupPaidSale {
  const byProvider = { stripe: createStripePaidInvoiceLookup({ apiBase: o.stripeApiBase }) };
  return (lookup, apiKey) => byProvider[lookup.provider](lookup, apiKey);
}
