/**
 * SePay webhooks in "API Key" mode: every request carries `Authorization: Apikey <key>`, the key
 * the merchant chose in SePay's dashboard and connected here as the connection's secret. SePay
 * signs nothing else in this mode, so the key is the signature: it is compared in constant time
 * (both sides hashed first, crypto.ts `constantTimeEqual`), and a body altered in transit by
 * someone who holds the key cannot be told apart. `sepay-pg-node` (SePay's payment-gateway SDK)
 * only signs checkout forms and calls the order API; it has no webhook verification to use here, so it is not a dependency.
 */
import { constantTimeEqual } from '../../core/crypto.ts';
import type { VerifyResult } from '../adapter.ts';
import { acceptVerifiedBody } from '../read-payload.ts';

const APIKEY = /^apikey[ \t]+(\S.*)$/i;

export function verifySepay(rawBody: Uint8Array, headers: Headers, secret: string): VerifyResult {
  const header = headers.get('authorization');
  if (!header) return { ok: false, reason: 'missing_signature_header' };
  const key = APIKEY.exec(header.trim())?.[1]?.trim();
  if (!key) return { ok: false, reason: 'malformed_signature_header' };
  if (!secret) return { ok: false, reason: 'missing_secret' };
  if (!constantTimeEqual(key, secret)) return { ok: false, reason: 'signature_mismatch' };
  return acceptVerifiedBody(rawBody);
}
