/**
 * Core's `sendTransfer` port for Stripe Connect payout runs, through the official SDK:
 * `transfers.create` with the payout's idempotency key (https://docs.stripe.com/api/transfers/create,
 * https://docs.stripe.com/api/idempotent_requests). The SDK retries network errors, 409 and 5xx
 * answers itself (`maxNetworkRetries`) with the same key, so Stripe makes the transfer once.
 * `apiBase` points the SDK elsewhere than api.stripe.com (tests run a local server).
 */
import Stripe from 'stripe';
import type { SendTransfer } from '../../core/payout-transfers.ts';

export function createStripeTransferSender(o: { apiBase: string; maxNetworkRetries?: number }): SendTransfer {
  const url = new URL(o.apiBase);
  const clients = new Map<string, Stripe>();
  const clientFor = (apiKey: string) => {
    let client = clients.get(apiKey);
    if (!client) {
      client = new Stripe(apiKey, {
        host: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        protocol: url.protocol === 'http:' ? 'http' : 'https',
        maxNetworkRetries: o.maxNetworkRetries ?? 2,
        timeout: 20_000,
      });
      clients.set(apiKey, client);
    }
    return client;
  };
  return async (apiKey, t) => {
    try {
      const transfer = await clientFor(apiKey).transfers.create(
        {
          amount: t.amountCents,
          currency: t.currency,
          destination: t.destination,
          transfer_group: t.transferGroup,
          metadata: t.metadata,
        },
        { idempotencyKey: t.idempotencyKey },
      );
      return { ok: true, transferId: transfer.id };
    } catch (err) {
      // Never the key: the SDK's message names the request's problem (balance, account, key scope).
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, error: message.slice(0, 500) };
    }
  };
}
