import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../core/shared/crypto.ts';
import type { ProviderAdapter } from './adapter.ts';
import { acceptVerifiedBody } from './read-payload.ts';

/** HMAC-SHA256 over the concatenation of `parts`, fed as bytes (never re-encoded text). */
export function computeHmacSha256(secret: string, ...parts: Uint8Array[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** True when `candidate` looks like a hex SHA-256 digest (64 hex characters). */
export function isSha256Hex(candidate: string): boolean {
  return SHA256_HEX.test(candidate);
}

/**
 * Constant-time comparison of a computed digest with a hex digest from a header. Anything that
 * is not 64 hex characters is rejected without comparing.
 */
export function matchesHexDigest(expected: Buffer, candidate: string): boolean {
  return isSha256Hex(candidate) && constantTimeEqual(expected, Buffer.from(candidate, 'hex'));
}

/**
 * The `verify` of a provider whose `header` is the hex HMAC-SHA256 of the raw body alone with the
 * webhook secret (Lemon Squeezy, Creem). Such a scheme has no timestamp, so there is no tolerance
 * to check; replays collapse on the dedupe key.
 */
export function createBodyHmacVerifier(header: string): ProviderAdapter['verify'] {
  return async (rawBody, headers, secret) => {
    const signature = headers.get(header);
    if (!signature) return { ok: false, reason: 'missing_signature_header' };
    if (!secret) return { ok: false, reason: 'missing_secret' };
    if (!isSha256Hex(signature)) return { ok: false, reason: 'malformed_signature_header' };
    if (!matchesHexDigest(computeHmacSha256(secret, rawBody), signature))
      return { ok: false, reason: 'signature_mismatch' };
    return acceptVerifiedBody(rawBody);
  };
}
