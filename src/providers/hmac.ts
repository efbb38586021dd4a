import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../core/crypto.ts';

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
