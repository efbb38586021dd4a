/**
 * Core's `sendTransfer` and `listTransfers` ports for Stripe Connect payout runs, through the
 * official SDK: `transfers.create` with the payout's idempotency key
 * (https://docs.stripe.com/api/transfers/create, https://docs.stripe.com/api/idempotent_requests)
 * and `transfers.list` by transfer group (https://docs.stripe.com/api/transfers/list). The SDK
 * retries network errors, 409 and 5xx answers itself (`maxNetworkRetries`) with the same key, so
 * Stripe makes the transfer once. `apiBase` points the SDK elsewhere than api.stripe.com (tests
 * run a local server).
 */
import type { ListTransfers, MadeTransfer, SendTransfer } from '../../core/ports.ts';
import { createStripeClients } from './client.ts';
import { toStripeAmount } from './stripe-amounts.ts';

/** Both ports over one SDK client per API key (`maxNetworkRetries` 2, 20 s per request by default). */
export function createStripeTransfers(o: { apiBase: string; maxNetworkRetries?: number }): {
  sendTransfer: SendTransfer;
  listTransfers: ListTransfers;
} {
  const clientFor = createStripeClients({
    apiBase: o.apiBase,
    maxNetworkRetries: o.maxNetworkRetries ?? 2,
    timeoutMs: 20_000,
  });
  return {
    async sendTransfer(apiKey, t) {
      const amount = toStripeAmount(t.amountCents, t.currency);
      if (amount === null)
        return { ok: false, error: `${t.currency} ${t.amountCents} is not an amount Stripe can send` };
      try {
        const transfer = await clientFor(apiKey).transfers.create(
          {
            amount,
            currency: t.currency,
            destination: t.destination,
            transfer_group: t.transferGroup,
            metadata: t.metadata,
          },
          { idempotencyKey: t.idempotencyKey },
        );
        return { ok: true, transferId: transfer.id };
      } catch (err) {
        return { ok: false, error: errorText(err) };
      }
    },
    /**
     * The transfers of a transfer group that name a payout of the program in their metadata (every
     * page: the SDK's auto-pagination). An error answers `ok: false`: the caller sends nothing then.
     */
    async listTransfers(apiKey, q) {
      try {
        const transfers: MadeTransfer[] = [];
        for await (const t of clientFor(apiKey).transfers.list({ transfer_group: q.transferGroup, limit: 100 })) {
          const payoutId = Number(t.metadata?.payout_id);
          if (t.metadata?.program_id !== String(q.programId) || !Number.isSafeInteger(payoutId)) continue;
          transfers.push({ transferId: t.id, payoutId, reversed: t.reversed });
        }
        return { ok: true, transfers };
      } catch (err) {
        return { ok: false, error: errorText(err) };
      }
    },
  };
}

/** Never the key: the SDK's message names the request's problem (balance, account, key scope). */
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
