import { createHmac, randomBytes } from 'node:crypto';
import { typedSql } from './sql.ts';
import type { Db } from './orm.ts';
import { ServiceInstance } from './entities/service-instance.ts';

/**
 * Lead emails are kept only as a keyed hash: HMAC-SHA256 of the trimmed, lower-cased address under
 * a server-side secret, so a leaked table cannot be reversed with a dictionary of addresses (plain
 * SHA-256 could). `customer.email_hash_version` says which scheme wrote a stored hash.
 */
export const EMAIL_HASH_VERSION = {
  /** Plain SHA-256 (rows and queued jobs from before the keyed hash). */
  sha256: 1,
  /** HMAC-SHA256 under the server secret. */
  hmacSha256: 2,
} as const;

export type EmailHasher = (email: string | null | undefined) => string | null;

export function createEmailHasher(secret: string): EmailHasher {
  return (email) => (email ? createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex') : null);
}

/**
 * The secret: EMAIL_HASH_SECRET when set; otherwise one generated on first use and kept in the
 * database (`service_instance`), so every process of the installation hashes alike. The first
 * writer wins when several processes start at once.
 */
export async function resolveEmailHashSecret(
  db: Db,
  configured: string | undefined,
): Promise<{ secret: string; source: 'config' | 'database' }> {
  if (configured) return { secret: configured, source: 'config' };
  const em = db.em.fork();
  await typedSql(em)
    .updateTable('service_instance')
    .set({ email_hash_secret: randomBytes(32).toString('base64url') })
    .where('id', '=', 1)
    .where('email_hash_secret', 'is', null)
    .execute();
  const row = await em.findOne(ServiceInstance, { id: 1 });
  if (!row?.emailHashSecret) throw new Error('service_instance row missing: run the migrations (npm run migrate)');
  return { secret: row.emailHashSecret, source: 'database' };
}
