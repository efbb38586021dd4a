/**
 * Official `stripe` SDK clients, one per API key, pointed at `apiBase` (https://api.stripe.com, or
 * a test's local server through STRIPE_API_BASE). Shared by the Connect transfer sender and the
 * invoice payments lookup, each with its own retry and timeout settings.
 */
import Stripe from 'stripe';

export type StripeClientOptions = { apiBase: string; maxNetworkRetries: number; timeoutMs: number };

/** A function answering the client of a key, created on first use. */
export function createStripeClients(o: StripeClientOptions): (apiKey: string) => Stripe {
  const url = new URL(o.apiBase);
  const clients = new Map<string, Stripe>();
  return (apiKey) => {
    let client = clients.get(apiKey);
    if (!client) {
      client = new Stripe(apiKey, {
        host: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        protocol: url.protocol === 'http:' ? 'http' : 'https',
        maxNetworkRetries: o.maxNetworkRetries,
        timeout: o.timeoutMs,
      });
      clients.set(apiKey, client);
    }
    return client;
  };
}
