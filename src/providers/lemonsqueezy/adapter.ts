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
import type { ProviderAdapter } from '../adapter.ts';
import { defineProviderAdapter } from '../define-adapter.ts';
import { createBodyHmacVerifier } from '../hmac.ts';
import { asRecord, isoFromString, readId, readString } from '../read-payload.ts';
import { orderCreated } from './events/order-created.ts';
import { orderRefunded } from './events/order-refunded.ts';
import { subscriptionPaymentRefunded } from './events/subscription-payment-refunded.ts';
import { subscriptionPaymentSuccess } from './events/subscription-payment-success.ts';

export function createLemonSqueezyAdapter(): ProviderAdapter {
  return defineProviderAdapter({
    name: 'lemonsqueezy',
    handlers: {
      order_created: orderCreated,
      order_refunded: orderRefunded,
      subscription_payment_success: subscriptionPaymentSuccess,
      subscription_payment_refunded: subscriptionPaymentRefunded,
    },
    verify: createBodyHmacVerifier('x-signature'),
    // The event name is read from the signed `meta.event_name`, not from the `X-Event-Name`
    // header, which the signature does not cover.
    readEnvelope(event) {
      const envelope = asRecord(event);
      const meta = asRecord(envelope?.meta);
      const data = asRecord(envelope?.data);
      const attributes = asRecord(data?.attributes);
      const eventName = readString(meta?.event_name);
      return {
        eventType: eventName,
        dedupeKey: computeLemonSqueezyDedupeKey(eventName, data, attributes),
        // Handlers read the JSON:API resource: its `id` and its `attributes`.
        object: data,
        test: meta?.test_mode === true || attributes?.test_mode === true,
        occurredAt: isoFromString(attributes?.created_at),
        envelopeMetadata: meta?.custom_data,
      };
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
