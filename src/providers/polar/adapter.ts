/**
 * Polar: Standard Webhooks signatures (https://polar.sh/docs/integrate/webhooks/delivery), checked
 * by the `standardwebhooks` package with the secret's UTF-8 bytes as the key, as Polar's own SDK
 * does. The body is `{ type, timestamp, data }`.
 *
 * Transaction-id rule: a sale is recorded under the Polar order id, and a refund names that order
 * in `order_id`, so refunds always find their sale.
 *
 * Test mode: Polar's sandbox (sandbox.polar.sh) is a separate environment whose payloads look
 * like production ones. Its endpoint's secret is added to the connection labelled `test`, which
 * makes everything it signs test traffic.
 */
import type { NormalisedEvent } from '../../core/jobs/normalised-event.ts';
import type { EventHandler, NormaliseContext, ProviderAdapter, VerifyResult } from '../adapter.ts';
import { dispatchEvent } from '../dispatch-event.ts';
import { asRecord, computeContentKey, isoFromString, readId, readString } from '../read-payload.ts';
import { verifyStandardWebhook } from '../standard-webhooks.ts';
import { orderPaid } from './events/order-paid.ts';
import { refundSucceeded } from './events/refund-succeeded.ts';

const handlers: Readonly<Record<string, EventHandler>> = {
  'order.paid': orderPaid,
  // A refund is created `pending` and updated to `succeeded`; either event may carry the success.
  'refund.created': refundSucceeded,
  'refund.updated': refundSucceeded,
};

export function createPolarAdapter(): ProviderAdapter {
  return {
    name: 'polar',
    eventTypes: Object.keys(handlers),
    verify: verifyPolarWebhook,
    normalise: normalisePolarEvent,
  };
}

function verifyPolarWebhook(rawBody: Uint8Array, headers: Headers, secret: string, now: Date): Promise<VerifyResult> {
  return verifyStandardWebhook(rawBody, headers, secret, now, 'utf8');
}

/**
 * The body carries no event id (the `webhook-id` header does, outside the JSON). The dedupe key
 * names the event, the object and the state it reports, so a redelivery collapses while a
 * refund's `pending` → `succeeded` update is a new event.
 */
function normalisePolarEvent(event: unknown, ctx: NormaliseContext): NormalisedEvent {
  const envelope = asRecord(event);
  const type = readString(envelope?.type);
  const data = asRecord(envelope?.data);
  const id = readId(data?.id);
  return dispatchEvent({
    handlers,
    eventType: type,
    dedupeKey: type && id ? [type, id, readString(data?.status) ?? 'none'].join('-') : computeContentKey(event),
    object: data,
    ctx: {
      provider: 'polar',
      programId: ctx.programId,
      receivedAt: ctx.receivedAt,
      test: ctx.testConnection === true,
      occurredAt: isoFromString(envelope?.timestamp),
      envelopeMetadata: null,
    },
  });
}
