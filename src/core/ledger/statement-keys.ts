/**
 * The deployment's statement-signing keys (Ed25519, Node's `crypto`): the newest key not retired
 * signs checkpoints; rotating retires it and makes a new one, and every key's public half stays
 * published, so older checkpoints still verify. Private keys are sealed at rest (sealed-secrets.ts)
 * under their own context and never leave this module in the clear.
 */
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/sql';
import { StatementKey, type IStatementKey } from '../entities/statement-key.ts';
import type { Sealer } from '../shared/sealed-secrets.ts';
import { typedSql } from '../db/sql.ts';

/** The associated data a private key is sealed with: a sealed key copied elsewhere does not open. */
export const STATEMENT_KEY_CONTEXT = 'statement_key.private_key';

/** A key as published (`/.well-known/statement-keys.json`, the portal): never the private half. */
export type PublicStatementKey = {
  keyId: string;
  algorithm: 'Ed25519';
  /** The raw 32-byte public key, base64url. */
  publicKey: string;
  createdAt: Date;
  /** Null while the key signs; set once a newer key replaced it (it still verifies). */
  retiredAt: Date | null;
};

/** The key that signs now, or null when none was made (no sealing key configured). */
export function currentStatementKey(em: EntityManager): Promise<IStatementKey | null> {
  return em.findOne(StatementKey, { retiredAt: null }, { orderBy: { id: 'desc' } });
}

/** Every key ever made, newest first, as published. */
export async function listStatementKeys(em: EntityManager): Promise<PublicStatementKey[]> {
  const keys = await em.find(StatementKey, {}, { orderBy: { id: 'desc' } });
  return keys.map((k) => ({
    keyId: k.keyId,
    algorithm: 'Ed25519',
    publicKey: k.publicKey,
    createdAt: k.createdAt,
    retiredAt: k.retiredAt ?? null,
  }));
}

/** The installation's row locked: key creation and rotation happen one at a time across processes. */
async function lockInstallation(em: EntityManager): Promise<void> {
  await typedSql(em).selectFrom('service_instance').select('id').where('id', '=', 1).forUpdate().execute();
}

function makeKey(em: EntityManager, sealer: Sealer, now: Date): IStatementKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return em.create(StatementKey, {
    keyId: createHash('sha256').update(raw).digest('hex').slice(0, 16),
    publicKey: raw.toString('base64url'),
    privateKeySealed: sealer.seal(der.toString('base64url'), STATEMENT_KEY_CONTEXT),
    createdAt: now,
    retiredAt: null,
  });
}

/**
 * The signing key, made on first use (at startup). Null when nothing can be sealed (production
 * mode without DATA_ENCRYPTION_KEYS): then no checkpoint is signed. The first of several processes
 * starting at once makes it; the others find it.
 */
export async function ensureStatementKey(em: EntityManager, sealer: Sealer, now: Date): Promise<IStatementKey | null> {
  if (!sealer.canSeal) return null;
  return em.transactional(async (tx) => {
    await lockInstallation(tx);
    const found = await currentStatementKey(tx);
    if (found) return found;
    const key = makeKey(tx, sealer, now);
    await tx.flush();
    return key;
  });
}

/**
 * Rotation: the current key is retired (kept, published) and a new one signs from now on.
 * @throws SealedSecretError when nothing can be sealed.
 */
export async function rotateStatementKey(
  em: EntityManager,
  sealer: Sealer,
  now: Date,
): Promise<{ key: IStatementKey; retired: string[] }> {
  return em.transactional(async (tx) => {
    await lockInstallation(tx);
    const current = await tx.find(StatementKey, { retiredAt: null });
    for (const k of current) k.retiredAt = now;
    const key = makeKey(tx, sealer, now);
    await tx.flush();
    return { key, retired: current.map((k) => k.keyId) };
  });
}

/** Ed25519 signature of `message` (UTF-8) by `key`, as 128 hex characters. */
export function signWithStatementKey(sealer: Sealer, key: IStatementKey, message: string): string {
  const der = Buffer.from(sealer.open(key.privateKeySealed, STATEMENT_KEY_CONTEXT), 'base64url');
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  return sign(null, Buffer.from(message, 'utf8'), privateKey).toString('hex');
}
