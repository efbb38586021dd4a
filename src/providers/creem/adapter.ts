/**
 * Creem: `creem-signature` is the hex HMAC-SHA256 of the raw body with the webhook secret
 * (https://docs.creem.io/code/webhooks). No Creem package verifies it, and the scheme is the
 * same as Lemon Squeezy's, so the shared HMAC helpers check it. It has no timestamp; replays
 * collapse on the event id. The body is `{ id, eventType, created_at, object }`.
 *
 * Transaction-id rule: a sale is recorded under the Creem transaction id (`tran_...`): the
 * checkout's `order.transaction`, a subscription payment's `last_transaction.id`. A refund names
 * the same transaction in `transaction.id`, so refunds always find their sale.
 *
 * Test mode: every Creem object carries `mode` (`test` in Creem's test mode), and a `test`
 * secret on the connection makes everything it signs test traffic too.
 */
import type { NormalisedEvent } from '../../core/jobs/normalised-event.ts';
import type { EventHandler, NormaliseContext, ProviderAdapter, VerifyResult } from '../adapter.ts';
import { dispatchEvent } from '../dispatch-event.ts';
import { computeHmacSha256, isSha256Hex, matchesHexDigest } from '../hmac.ts';
import { asRecord, computeContentKey, isoFromUnixMilliseconds, parseJsonObject, readString } from '../read-payload.ts';
import { checkoutCompleted } from './events/checkout-completed.ts';
import { refundCreated } from './events/refund-created.ts';
import { subscriptionPaid } from './events/subscription-paid.ts';

const handlers: Readonly<Record<string, EventHandler>> = {
  'checkout.completed': checkoutCompleted,
  'subscription.paid': subscriptionPaid,
  'refund.created': refundCreated,
};

/** Creem's non-production modes (`local` appears in its documentation samples). */
const TEST_MODES = new Set(['test', 'sandbox', 'local']);

export function createCreemAdapter(): ProviderAdapter {
  return {
    name: 'creem',
    eventTypes: Object.keys(handlers),
    verify: verifyCreemWebhook,
    normalise: normaliseCreemEvent,
  };
}

async function verifyCreemWebhook(
  rawBody: Uint8Array,
  headers: Headers,
  secret: string,
  _now: Date,
): Promise<VerifyResult> {
  const signature = headers.get('creem-signature');
  if (!signature) return { ok: false, reason: 'missing_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  if (!isSha256Hex(signature)) return { ok: false, reason: 'malformed_signature_header' };
  if (!matchesHexDigest(computeHmacSha256(secret, rawBody), signature))
    return { ok: false, reason: 'signature_mismatch' };
  const event = parseJsonObject(rawBody);
  return event ? { ok: true, event } : { ok: false, reason: 'invalid_json' };
}

function normaliseCreemEvent(event: unknown, ctx: NormaliseContext): NormalisedEvent {
  const envelope = asRecord(event);
  const object = asRecord(envelope?.object);
  return dispatchEvent({
    handlers,
    eventType: readString(envelope?.eventType),
    dedupeKey: readString(envelope?.id) ?? computeContentKey(event),
    object,
    ctx: {
      provider: 'creem',
      programId: ctx.programId,
      receivedAt: ctx.receivedAt,
      test: ctx.testConnection === true || TEST_MODES.has(readString(object?.mode) ?? ''),
      occurredAt: isoFromUnixMilliseconds(envelope?.created_at),
      envelopeMetadata: null,
    },
  });
}
