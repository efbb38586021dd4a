/**
 * Dodo Payments: Standard Webhooks signatures
 * (https://docs.dodopayments.com/developer-resources/webhooks), checked by the `standardwebhooks`
 * package with the endpoint's `whsec_...` secret, as Dodo's own SDK does. The body is
 * `{ business_id, type, timestamp, data }`, `data.payload_type` naming the object.
 *
 * Transaction-id rule: a sale is recorded under the Dodo payment id (`pay_...`), and a refund
 * names that payment in `payment_id`, so refunds always find their sale.
 *
 * Test mode: Dodo's test mode (test.dodopayments.com) has its own webhook endpoints and secrets,
 * and its payloads look like live ones. The test endpoint's secret is added to the connection
 * labelled `test`, which makes everything it signs test traffic.
 */
import type { NormalisedEvent } from '../../core/jobs/normalised-event.ts';
import type { EventHandler, NormaliseContext, ProviderAdapter, VerifyResult } from '../adapter.ts';
import { dispatchEvent } from '../dispatch-event.ts';
import { asRecord, computeContentKey, isoFromString, readId, readString } from '../read-payload.ts';
import { verifyStandardWebhook } from '../standard-webhooks.ts';
import { paymentSucceeded } from './events/payment-succeeded.ts';
import { refundSucceeded } from './events/refund-succeeded.ts';

const handlers: Readonly<Record<string, EventHandler>> = {
  'payment.succeeded': paymentSucceeded,
  'refund.succeeded': refundSucceeded,
};

export function createDodoAdapter(): ProviderAdapter {
  return { name: 'dodo', eventTypes: Object.keys(handlers), verify: verifyDodoWebhook, normalise: normaliseDodoEvent };
}

function verifyDodoWebhook(rawBody: Uint8Array, headers: Headers, secret: string, now: Date): Promise<VerifyResult> {
  return verifyStandardWebhook(rawBody, headers, secret, now, 'standard');
}

/**
 * The body carries no event id (the `webhook-id` header does, outside the JSON). A payment or a
 * refund reaches each of these events once, so the event type and the object's own id make the
 * dedupe key.
 */
function normaliseDodoEvent(event: unknown, ctx: NormaliseContext): NormalisedEvent {
  const envelope = asRecord(event);
  const type = readString(envelope?.type);
  const data = asRecord(envelope?.data);
  const id = readId(data?.refund_id) ?? readId(data?.payment_id) ?? readId(data?.subscription_id);
  return dispatchEvent({
    handlers,
    eventType: type,
    dedupeKey: type && id ? [type, id].join('-') : computeContentKey(event),
    object: data,
    ctx: {
      provider: 'dodo',
      programId: ctx.programId,
      receivedAt: ctx.receivedAt,
      test: ctx.testConnection === true,
      occurredAt: isoFromString(envelope?.timestamp),
      envelopeMetadata: null,
    },
  });
}
