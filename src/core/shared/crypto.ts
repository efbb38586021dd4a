/**
 * The service's two hashing primitives, in one place: SHA-256 of text or bytes (what is stored in
 * place of a token or key, content keys, ETags) and the constant-time comparison of secrets.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 digest; strings are hashed as their UTF-8 bytes. */
export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** SHA-256 as 64 lower-case hex characters. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Constant-time equality of two secrets (tokens, hashes, signatures) of any lengths. Both sides are
 * hashed first, so the comparison always runs over 32 bytes: it neither throws on unequal lengths
 * (as `timingSafeEqual` does) nor reveals the expected secret's length through its timing.
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
