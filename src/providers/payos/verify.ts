/**
 * PayOS signs a payment webhook's `data` object, not the body bytes: `signature` is the hex
 * HMAC-SHA256, with the payment channel's checksum key, of `data`'s fields sorted by key and
 * joined as `key=value&...` (null → empty). That string and its HMAC are computed by the official
 * SDK (`@payos/node`, `payos.crypto.createSignatureFromObj`, the function its own
 * `webhooks.verify` calls and its README names for webhook signatures), on `data` exactly as
 * parsed from the raw body; only the comparison is ours, in constant time (the SDK's `verify`
 * compares with `!==`). No network: the client is built with placeholder API credentials and
 * only its crypto is used. Before any of that, `data` must have one reading of its signed text
 * (signed-fields.ts): the text escapes nothing, so a value could otherwise hide further fields.
 */
import { PayOS } from '@payos/node';
import { constantTimeEqual } from '../../core/shared/crypto.ts';
import type { VerifyResult } from '../adapter.ts';
import { isSha256Hex } from '../hmac.ts';
import { acceptVerifiedBody, asRecord } from '../read-payload.ts';
import { hasUnambiguousSignedText } from './signed-fields.ts';

let crypto: PayOS['crypto'] | null = null;

/** The SDK's crypto provider (built once; the placeholder credentials are never sent anywhere). */
function payosCrypto(): PayOS['crypto'] {
  crypto ??= new PayOS({
    clientId: 'webhook-verification-only',
    apiKey: 'webhook-verification-only',
    checksumKey: 'webhook-verification-only',
    logLevel: 'off',
  }).crypto;
  return crypto;
}

export async function verifyPayos(rawBody: Uint8Array, secret: string): Promise<VerifyResult> {
  const parsed = acceptVerifiedBody(rawBody);
  if (!parsed.ok) return parsed;
  const body = asRecord(parsed.event);
  const signature = body?.signature;
  const data = asRecord(body?.data);
  if (typeof signature !== 'string' || !signature || !data) return { ok: false, reason: 'missing_signature_header' };
  if (!isSha256Hex(signature)) return { ok: false, reason: 'malformed_signature_header' };
  if (!hasUnambiguousSignedText(data)) return { ok: false, reason: 'ambiguous_signed_fields' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  let expected: string | null;
  try {
    expected = await payosCrypto().createSignatureFromObj(data, secret);
  } catch {
    expected = null;
  }
  if (!expected || !constantTimeEqual(expected, signature)) return { ok: false, reason: 'signature_mismatch' };
  return parsed;
}
