/**
 * Creem: `creem-signature` is the hex HMAC-SHA256 of the raw body with the webhook secret
 * (https://docs.creem.io/code/webhooks). No Creem package verifies it, and the scheme is the
 * same as Lemon Squeezy's, so the shared HMAC helpers check it. It has no timestamp; replays
 * collapse on the event id. The body is `{ id, eventType, created_at, object }`.
 *
 * Transaction-id rule: a sale is recorded under the Creem transaction id (`tran_...`): the
 * checkout's `order.transaction` (or, when the order names none, as in Creem's documented sample,
 * the order id), a renewal's `last_transaction` (or `last_transaction_id`). A refund or dispute
 * names the transaction and its order, linked first, so it always finds its sale. The first
 * payment of a subscription is recorded by `checkout.completed` only.
 *
 * Test mode: every Creem object carries `mode` (`test` in Creem's test mode), and a `test`
 * secret on the connection makes everything it signs test traffic too.
 */
import type { ProviderAdapter } from '../adapter.ts';
import { defineProviderAdapter } from '../define-adapter.ts';
import { createBodyHmacVerifier } from '../hmac.ts';
import { asRecord, isoFromUnixMilliseconds, readString } from '../read-payload.ts';
import { checkoutCompleted } from './events/checkout-completed.ts';
import { refundCreated } from './events/refund-created.ts';
import { subscriptionPaid } from './events/subscription-paid.ts';
import { disputeCreated } from './events/dispute-created.ts';

/** Creem's non-production modes (`local` appears in its documentation samples). */
const TEST_MODES = new Set(['test', 'sandbox', 'local']);

export function createCreemAdapter(): ProviderAdapter {
  return defineProviderAdapter({
    name: 'creem',
    handlers: {
      'checkout.completed': checkoutCompleted,
      'subscription.paid': subscriptionPaid,
      'refund.created': refundCreated,
      'dispute.created': disputeCreated,
    },
    verify: createBodyHmacVerifier('creem-signature'),
    readEnvelope(event) {
      const envelope = asRecord(event);
      const object = asRecord(envelope?.object);
      return {
        eventType: readString(envelope?.eventType),
        dedupeKey: readString(envelope?.id),
        object,
        test: TEST_MODES.has(readString(object?.mode) ?? ''),
        occurredAt: isoFromUnixMilliseconds(envelope?.created_at),
      };
    },
  });
}
