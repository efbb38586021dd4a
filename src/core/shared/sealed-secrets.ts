/**
 * Sealed secrets: values the service must read back (a provider's API key, a partner's payout
 * details) stored encrypted with AES-256-GCM under a key that is not in the database.
 *
 * A sealed value is one self-describing string, `v1:<keyid>:<iv>:<tag>:<ciphertext>` (iv, tag and
 * ciphertext base64url), so a row says which key opens it. The keys come from
 * `DATA_ENCRYPTION_KEYS` (`keyid:base64-of-32-bytes`, comma-separated): the first seals, every one
 * opens. Rotation: put a new key first and keep the old one after it, re-seal the rows
 * (`resealAll`, admin `secrets:reseal`), then drop the old key.
 *
 * `context` (optional, e.g. `provider_connection.api_key`) is bound to the value as associated
 * data: a value copied into another column does not open there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SEALED_VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The keys a process holds: `sealKeyId` seals, every key of `keys` opens. */
export type SealingKeys = { sealKeyId: string; keys: ReadonlyMap<string, Buffer> };

/** Why a value could not be sealed or opened; the message names the key id, never a key. */
export class SealedSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedSecretError';
  }
}

/**
 * Parses `keyid:base64,keyid:base64,…` (32-byte keys, unique ids of letters, digits, `_`, `-`).
 * @throws SealedSecretError naming the faulty entry by its position and id.
 */
export function parseSealingKeys(spec: string): SealingKeys {
  const keys = new Map<string, Buffer>();
  const entries = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!entries.length) throw new SealedSecretError('no key given (expected keyid:base64-of-32-bytes)');
  for (const [i, entry] of entries.entries()) {
    const at = entry.indexOf(':');
    const id = at > 0 ? entry.slice(0, at) : '';
    if (!KEY_ID.test(id))
      throw new SealedSecretError(`entry ${i + 1}: expected keyid:base64 with a key id of letters, digits, _ or -`);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (key.length !== KEY_BYTES)
      throw new SealedSecretError(`key "${id}" is ${key.length} bytes; it must be 32 (openssl rand -base64 32)`);
    if (keys.has(id)) throw new SealedSecretError(`key id "${id}" appears twice`);
    keys.set(id, key);
  }
  return { sealKeyId: entries[0]!.slice(0, entries[0]!.indexOf(':')), keys };
}

/** A fresh key entry, `keyid:base64` (what the embedded key file holds). */
export function generateSealingKey(keyId: string): string {
  return `${keyId}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

export type Sealer = {
  /** Whether values can be sealed (a key is configured). */
  readonly canSeal: boolean;
  /** The id of the key new values are sealed with; null when none is configured. */
  readonly sealKeyId: string | null;
  /** @throws SealedSecretError when no key is configured (the message says what to set). */
  seal(plain: string, context?: string): string;
  /** @throws SealedSecretError for an unknown key id, a malformed or tampered value, or another context. */
  open(sealed: string, context?: string): string;
  /** The key id a sealed value names (null when it is not a sealed value). */
  keyIdOf(sealed: string): string | null;
};

/**
 * A sealer over `keys`; `null` keys: nothing can be sealed or opened, and both say
 * `missingKeyMessage` (production mode without DATA_ENCRYPTION_KEYS).
 */
export function createSealer(keys: SealingKeys | null, missingKeyMessage = 'DATA_ENCRYPTION_KEYS is not set'): Sealer {
  const keyFor = (id: string): Buffer => {
    if (!keys) throw new SealedSecretError(missingKeyMessage);
    const key = keys.keys.get(id);
    if (!key)
      throw new SealedSecretError(
        `the value is sealed with key "${id}", which DATA_ENCRYPTION_KEYS does not hold (add it back, after the current key)`,
      );
    return key;
  };
  return {
    canSeal: keys !== null,
    sealKeyId: keys?.sealKeyId ?? null,
    seal(plain, context = '') {
      if (!keys) throw new SealedSecretError(missingKeyMessage);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(keys.sealKeyId), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url'));
      return [SEALED_VERSION, keys.sealKeyId, ...parts].join(':');
    },
    open(sealed, context = '') {
      const parts = sealed.split(':');
      if (parts.length !== 5 || parts[0] !== SEALED_VERSION)
        throw new SealedSecretError(`not a sealed value (expected ${SEALED_VERSION}:<keyid>:<iv>:<tag>:<ciphertext>)`);
      const [, id, iv, tag, ct] = parts as [string, string, string, string, string];
      const key = keyFor(id);
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES)
        throw new SealedSecretError(`sealed value with key "${id}" is malformed`);
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tagBytes);
      try {
        return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealedSecretError(
          `sealed value with key "${id}" does not authenticate (altered, or sealed for another use or key)`,
        );
      }
    },
    keyIdOf(sealed) {
      const parts = sealed.split(':');
      return parts.length === 5 && parts[0] === SEALED_VERSION ? parts[1]! : null;
    },
  };
}

/**
 * What may be shown of a secret: its last 4 characters (`…abcd`); shorter secrets show nothing
 * (their last 4 would be most of them).
 */
export function secretHint(secret: string): string {
  return secret.length >= 12 ? `…${secret.slice(-4)}` : '…';
}
