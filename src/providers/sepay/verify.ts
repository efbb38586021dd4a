/**
 * SePay webhooks, in either of the two authenticated modes SePay offers (the merchant picks one when
 * creating the webhook; the connection's secret is the key or the HMAC secret chosen there):
 *
 * - **HMAC-SHA256** (SePay's recommended mode): `X-SePay-Signature: sha256=<hex>` is the HMAC-SHA256,
 *   keyed with the secret, of `<X-SePay-Timestamp>.<raw body>`; the timestamp is Unix seconds and
 *   a delivery more than 5 minutes away from the injected clock is refused (SePay's replay advice).
 *   The body is signed, so an altered body is rejected.
 * - **API Key**: `Authorization: Apikey <key>`. SePay signs nothing else in this mode, so the key is
 *   the signature: it is compared in constant time, and a body altered in transit by someone who
 *   holds the key cannot be told apart.
 *
 * A request carrying `X-SePay-Signature` is verified as HMAC, whatever else it carries; either way
 * the secret is needed, and in HMAC mode it never travels. `sepay-pg-node` (SePay's payment-gateway
 * SDK) only signs checkout forms and calls the order API; it has no webhook verification to use
 * here, so it is not a dependency.
 */
import { constantTimeEqual } from '../../core/shared/crypto.ts';
import type { VerifyResult } from '../adapter.ts';
import { computeHmacSha256, isSha256Hex, matchesHexDigest } from '../hmac.ts';
import { acceptVerifiedBody } from '../read-payload.ts';

const APIKEY = /^apikey[ \t]+(\S.*)$/i;
const UNIX_SECONDS = /^\d{1,12}$/;
const TOLERANCE_SECONDS = 5 * 60;

export function verifySepay(rawBody: Uint8Array, headers: Headers, secret: string, now: Date): VerifyResult {
  const signature = headers.get('x-sepay-signature');
  if (signature !== null) return verifySepayHmac(rawBody, signature, headers.get('x-sepay-timestamp'), secret, now);
  const header = headers.get('authorization');
  if (!header) return { ok: false, reason: 'missing_signature_header' };
  const key = APIKEY.exec(header.trim())?.[1]?.trim();
  if (!key) return { ok: false, reason: 'malformed_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  if (!constantTimeEqual(key, secret)) return { ok: false, reason: 'signature_mismatch' };
  return acceptVerifiedBody(rawBody);
}

function verifySepayHmac(
  rawBody: Uint8Array,
  signatureHeader: string,
  timestampHeader: string | null,
  secret: string,
  now: Date,
): VerifyResult {
  const timestamp = timestampHeader?.trim();
  if (!timestamp) return { ok: false, reason: 'missing_signature_header' };
  const digest = signatureHeader.trim().replace(/^sha256=/i, '');
  if (!UNIX_SECONDS.test(timestamp) || !isSha256Hex(digest)) return { ok: false, reason: 'malformed_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  // Signed payload is `<timestamp>.<raw body>`, with the timestamp exactly as the header spells it.
  const expected = computeHmacSha256(secret, new TextEncoder().encode(`${timestamp}.`), rawBody);
  if (!matchesHexDigest(expected, digest)) return { ok: false, reason: 'signature_mismatch' };
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) > TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  return acceptVerifiedBody(rawBody);
}
