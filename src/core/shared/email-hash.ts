import { createHmac } from 'node:crypto';
import { normaliseEmail } from './normalise-email.ts';

/**
 * Lead emails are kept only as a keyed hash: HMAC-SHA256 of the normalised address (normalise-email.ts)
 * under a server-side secret, so a leaked table cannot be reversed with a dictionary of addresses
 * (plain SHA-256 could). `customer.email_hash_version` says which scheme wrote a stored hash.
 */
export const EMAIL_HASH_VERSION = {
  /** Plain SHA-256 (rows and queued jobs from before the keyed hash). */
  sha256: 1,
  /** HMAC-SHA256 of the trimmed, lower-cased address (rows and queued jobs from before normalisation). */
  hmacSha256: 2,
  /** HMAC-SHA256 of the normalised address (plus tags, Gmail dots, `googlemail.com`, ...): the current scheme. */
  hmacSha256Normalised: 3,
} as const;
export type EmailHashVersion = (typeof EMAIL_HASH_VERSION)[keyof typeof EMAIL_HASH_VERSION];

/** The address as the given scheme hashes it (the keyed ones; version 1 is never computed again). */
export function emailHashInput(email: string, version: EmailHashVersion): string {
  return version === EMAIL_HASH_VERSION.hmacSha256Normalised ? normaliseEmail(email) : email.trim().toLowerCase();
}

/** Hashes an address by the current scheme, or by an older keyed one to compare with a stored hash. */
export type EmailHasher = (email: string | null | undefined, version?: EmailHashVersion) => string | null;

export function createEmailHasher(secret: string): EmailHasher {
  return (email, version = EMAIL_HASH_VERSION.hmacSha256Normalised) =>
    email ? createHmac('sha256', secret).update(emailHashInput(email, version)).digest('hex') : null;
}
