/**
 * Lemon Squeezy: `X-Signature` is the hex HMAC-SHA256 of the raw body with the webhook's signing
 * secret (https://docs.lemonsqueezy.com/help/webhooks/signing-requests). The scheme has no
 * timestamp, so there is no tolerance to check; replays collapse on the synthesised dedupe key.
 *
 * Transaction-id rule: orders are recorded as `ls-order-<order id>` and subscription invoices as
 * `ls-invoice-<invoice id>`. Both id sequences are plain integers that can collide with each
 * other (and with a merchant's own API transaction ids), hence the prefix. `order_refunded`
 * carries the order and `subscription_payment_refunded` the invoice, so each refund rebuilds the
 * id of the sale it refunds.
 */
import type { NormalisedEvent } from '../../core/jobs/normalised-event.ts';
import type { EventHandler, NormaliseContext, ProviderAdapter, VerifyResult } from '../adapter.ts';
import { dispatchEvent } from '../dispatch-event.ts';
import { computeHmacSha256, isSha256Hex, matchesHexDigest } from '../hmac.ts';
import { asRecord, computeContentKey, isoFromString, parseJsonObject, readId, readString } from '../read-payload.ts';
import { orderCreated } from './events/order-created.ts';
import { orderRefunded } from './events/order-refunded.ts';
import { subscriptionPaymentRefunded } from './events/subscription-payment-refunded.ts';
import { subscriptionPaymentSuccess } from './events/subscription-payment-success.ts';

const handlers: Readonly<Record<string, EventHandler>> = {
  order_created: orderCreated,
  order_refunded: orderRefunded,
  subscription_payment_success: subscriptionPaymentSuccess,
  subscription_payment_refunded: subscriptionPaymentRefunded,
};

export function createLemonSqueezyAdapter(): ProviderAdapter {
  return {
    name: 'lemonsqueezy',
    eventTypes: Object.keys(handlers),
    verify: verifyLemonSqueezyWebhook,
    normalise: normaliseLemonSqueezyEvent,
  };
}

async function verifyLemonSqueezyWebhook(
  rawBody: Uint8Array,
  headers: Headers,
  secret: string,
  _now: Date,
): Promise<VerifyResult> {
  const signature = headers.get('x-signature');
  if (!signature) return { ok: false, reason: 'missing_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  if (!isSha256Hex(signature)) return { ok: false, reason: 'malformed_signature_header' };
  if (!matchesHexDigest(computeHmacSha256(secret, rawBody), signature))
    return { ok: false, reason: 'signature_mismatch' };
  const event = parseJsonObject(rawBody);
  return event ? { ok: true, event } : { ok: false, reason: 'invalid_json' };
}

/**
 * The event name is read from the signed `meta.event_name`, not from the `X-Event-Name` header,
 * which the signature does not cover.
 */
function normaliseLemonSqueezyEvent(event: unknown, ctx: NormaliseContext): NormalisedEvent {
  const envelope = asRecord(event);
  const meta = asRecord(envelope?.meta);
  const data = asRecord(envelope?.data);
  const attributes = asRecord(data?.attributes);
  const eventName = readString(meta?.event_name);
  return dispatchEvent({
    handlers,
    eventType: eventName,
    dedupeKey: computeLemonSqueezyDedupeKey(eventName, data, attributes) ?? computeContentKey(event),
    // Handlers read the JSON:API resource: its `id` and its `attributes`.
    object: data,
    ctx: {
      provider: 'lemonsqueezy',
      programId: ctx.programId,
      receivedAt: ctx.receivedAt,
      test: ctx.testConnection === true || meta?.test_mode === true || attributes?.test_mode === true,
      occurredAt: isoFromString(attributes?.created_at),
      envelopeMetadata: meta?.custom_data,
    },
  });
}

/**
 * Lemon Squeezy sends no event id. The key names the event, the resource and the state that
 * event reports (status and cumulative refunded amount): a redelivery of the same webhook maps to
 * the same key, while a second partial refund (higher `refunded_amount`) gets a new one.
 */
function computeLemonSqueezyDedupeKey(
  eventName: string | null,
  data: Record<string, unknown> | null,
  attributes: Record<string, unknown> | null,
): string | null {
  const id = readId(data?.id);
  if (!eventName || !id) return null;
  const status = readString(attributes?.status) ?? 'none';
  const refunded = readId(attributes?.refunded_amount) ?? 'none';
  return [eventName, readString(data?.type) ?? 'resource', id, status, refunded].join('-');
}
