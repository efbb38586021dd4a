/**
 * Paddle Billing: own HMAC verification, one handler per event type.
 *
 * Transaction-id rule: a sale is recorded under the Paddle transaction id (`txn_...`), and a
 * refund adjustment names that same id in `transaction_id`, so refunds always find their sale.
 *
 * Why not `@paddle/paddle-node-sdk` `webhooks.unmarshal()` (v3.10): it reads the wall clock
 * (`new Date()`, no way to inject ours), allows only 5 s of age, compares digests with `===`
 * (not constant-time), keeps only the last `h1` (Paddle sends several while a secret is being
 * rotated) and takes the body as a string rather than bytes.
 * Scheme: https://developer.paddle.com/webhooks/signature-verification
 */
import type { EventHandler, ProviderAdapter, VerifyResult } from '../adapter.ts';
import { defineProviderAdapter, type EnvelopeFields } from '../define-adapter.ts';
import { computeHmacSha256, matchesHexDigest } from '../hmac.ts';
import { acceptVerifiedBody, asRecord, isoFromString, readString } from '../read-payload.ts';
import { adjustment } from './events/adjustment.ts';
import { transactionCompleted } from './events/transaction-completed.ts';

/**
 * Paddle recommends 5 s; we allow 300 s either way (Stripe's default) so modest clock skew or a
 * slow proxy does not reject genuine deliveries. Replays inside the window are harmless: the
 * inbox dedupes on `event_id`.
 */
const TOLERANCE_SECONDS = 300;

const handlers: Readonly<Record<string, EventHandler>> = {
  'transaction.completed': transactionCompleted,
  // Refunds start as `pending_approval` (`adjustment.created`) and are approved later
  // (`adjustment.updated`); the core skips an adjustment id it has already applied.
  'adjustment.created': adjustment,
  'adjustment.updated': adjustment,
};

export function createPaddleAdapter(): ProviderAdapter {
  return defineProviderAdapter({
    name: 'paddle',
    handlers,
    verify: verifyPaddleWebhook,
    readEnvelope: readPaddleEnvelope,
  });
}

async function verifyPaddleWebhook(
  rawBody: Uint8Array,
  headers: Headers,
  secret: string,
  now: Date,
): Promise<VerifyResult> {
  const header = headers.get('paddle-signature');
  if (!header) return { ok: false, reason: 'missing_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  const signature = parsePaddleSignature(header);
  if (!signature) return { ok: false, reason: 'malformed_signature_header' };

  // Signed payload is `<ts>:<raw body>`, with `ts` exactly as the header spells it.
  const expected = computeHmacSha256(secret, new TextEncoder().encode(`${signature.ts}:`), rawBody);
  if (!signature.h1.some((candidate) => matchesHexDigest(expected, candidate))) {
    return { ok: false, reason: 'signature_mismatch' };
  }
  const ageSeconds = Math.floor(now.getTime() / 1000) - Number(signature.ts);
  if (Math.abs(ageSeconds) > TOLERANCE_SECONDS) return { ok: false, reason: 'timestamp_outside_tolerance' };

  return acceptVerifiedBody(rawBody);
}

/** `ts=1671552777;h1=<hex>[;h1=<hex>...]`; `null` unless there is one numeric `ts` and an `h1`. */
function parsePaddleSignature(header: string): { ts: string; h1: string[] } | null {
  let ts: string | null = null;
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) return null;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 'ts') {
      if (ts !== null || !/^\d{1,12}$/.test(value)) return null;
      ts = value;
    } else if (key === 'h1') {
      h1.push(value);
    }
  }
  return ts !== null && h1.length > 0 ? { ts, h1 } : null;
}

function readPaddleEnvelope(event: unknown): EnvelopeFields {
  const envelope = asRecord(event);
  return {
    eventType: readString(envelope?.event_type),
    dedupeKey: readString(envelope?.event_id),
    object: envelope?.data,
    // Paddle payloads do not say sandbox or live (no `test`); handlers add the `custom_data` flags.
    occurredAt: isoFromString(envelope?.occurred_at),
  };
}
