import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An Ed25519 key of the deployment that signs partners' statement checkpoints. The newest key not
 * retired signs; a rotated key is retired and kept, so checkpoints it signed still verify against
 * the public keys served at `/.well-known/statement-keys.json`.
 */
export const StatementKey = defineEntity({
  name: 'StatementKey',
  properties: {
    id: p.integer().primary().autoincrement(),
    /** Public name of the key: the first 16 hex characters of the SHA-256 of its raw public key. */
    keyId: p.string().length(16).unique(),
    /** The raw 32-byte Ed25519 public key, base64url. */
    publicKey: p.string(),
    /** The private key (PKCS#8 DER, base64url), sealed (sealed-secrets.ts); never returned. */
    privateKeySealed: p.text(),
    createdAt: p.datetime(),
    retiredAt: p.datetime().nullable(),
  },
});
export type IStatementKey = InferEntity<typeof StatementKey>;
