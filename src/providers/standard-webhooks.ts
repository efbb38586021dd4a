/**
 * Standard Webhooks verification (https://www.standardwebhooks.com), used by Polar and Dodo
 * Payments: `webhook-signature` holds `v1,<base64 HMAC-SHA256>` entries over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`. The signature list and the HMAC are the
 * `standardwebhooks` package's; only the timestamp tolerance is ours, because the package measures
 * it against `Date.now()` and the service measures every tolerance against its injected clock.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookProvider } from '../core/shared/vocabulary.ts';
import type { EventHandler, ProviderAdapter, VerifyResult } from './adapter.ts';
import { defineProviderAdapter } from './define-adapter.ts';
import { acceptVerifiedBody, asRecord, isoFromString, readString, type JsonObject } from './read-payload.ts';

/** The Standard Webhooks default (and the package's): five minutes either way. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;

/**
 * How the provider turns the secret its dashboard shows into the package's key: Dodo shows
 * `whsec_<base64>` (the Standard Webhooks form, used as is); Polar's SDK base64-encodes its
 * secret's UTF-8 bytes first (`validateEvent` in `@polar-sh/sdk/webhooks`).
 */
export type SecretEncoding = 'standard' | 'utf8';

/** The package's timestamp check, replaced by ours against the injected clock (see above). */
class InjectedClockWebhook extends Webhook {
  constructor(key: string) {
    super(key);
    Object.defineProperty(this, 'verifyTimestamp', { value: (header: string) => new Date(Number(header) * 1000) });
  }
}

export async function verifyStandardWebhook(
  rawBody: Uint8Array,
  headers: Headers,
  secret: string,
  now: Date,
  encoding: SecretEncoding,
): Promise<VerifyResult> {
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signature = headers.get('webhook-signature');
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed_signature_header' };

  let body: string;
  try {
    // The package signs a string; a body that is not UTF-8 would not survive the decoding intact.
    body = new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
  let webhook: Webhook;
  try {
    webhook = new InjectedClockWebhook(encoding === 'utf8' ? Buffer.from(secret, 'utf8').toString('base64') : secret);
  } catch {
    // Not base64 after `whsec_`: no delivery can match it.
    return { ok: false, reason: 'missing_secret' };
  }
  try {
    webhook.verify(
      body,
      { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature },
      { jsonParse: false },
    );
  } catch {
    return { ok: false, reason: 'signature_mismatch' };
  }
  const ageSeconds = Math.floor(now.getTime() / 1000) - Number(timestamp);
  if (Math.abs(ageSeconds) > STANDARD_WEBHOOKS_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  return acceptVerifiedBody(rawBody);
}

export type StandardWebhooksProvider = {
  name: WebhookProvider;
  handlers: Readonly<Record<string, EventHandler>>;
  encoding: SecretEncoding;
  /**
   * What follows the event type in the dedupe key, read from `data`; `null` when the payload lacks
   * it (the key is then a digest of the JSON). The body carries no event id: the `webhook-id`
   * header does, outside the JSON.
   */
  dedupeParts(data: JsonObject | null): string[] | null;
};

/**
 * An adapter for a provider signing with Standard Webhooks and sending the envelope
 * `{ type, timestamp, data }` (Polar, Dodo): the handlers receive `data`. The scheme says nothing
 * of test mode, so only the connection's `test` secrets make test traffic.
 */
export function defineStandardWebhooksAdapter(provider: StandardWebhooksProvider): ProviderAdapter {
  return defineProviderAdapter({
    name: provider.name,
    handlers: provider.handlers,
    verify: (rawBody, headers, secret, now) => verifyStandardWebhook(rawBody, headers, secret, now, provider.encoding),
    readEnvelope(event) {
      const envelope = asRecord(event);
      const type = readString(envelope?.type);
      const data = asRecord(envelope?.data);
      const parts = provider.dedupeParts(data);
      return {
        eventType: type,
        dedupeKey: type && parts ? [type, ...parts].join('-') : null,
        object: data,
        occurredAt: isoFromString(envelope?.timestamp),
      };
    },
  });
}
