/**
 * Core's `sendTransfer` port for Stripe Connect payout runs, through the official SDK:
 * `transfers.create` with the payout's idempotency key (https://docs.stripe.com/api/transfers/create,
 * https://docs.stripe.com/api/idempotent_requests). The SDK retries network errors, 409 and 5xx
 * answers itself (`maxNetworkRetries`) with the same key, so Stripe makes the transfer once.
 * `apiBase` points the SDK elsewhere than api.stripe.com (tests run a local server).
 */
import type { SendTransfer } from '../../core/payout-transfers.ts';
import { createStripeClients } from './client.ts';

export function createStripeTransferSender(o: { apiBase: string; maxNetworkRetries?: number }): SendTransfer {
  const clientFor = createStripeClients({
    apiBase: o.apiBase,
    maxNetworkRetries: o.maxNetworkRetries ?? 2,
    timeoutMs: 20_000,
  });
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
