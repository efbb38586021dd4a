/**
 * The installation's own values kept in its database (`ServiceInstance`): its nonce and the
 * lead-email hash secret. Read at startup, before any deps exist: handed the `Db`, each read forks
 * its own context (deps.ts `CoreDeps`).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './orm.ts';
import { typedSql } from './sql.ts';
import { ServiceInstance } from '../entities/service-instance.ts';

/** The database's random nonce (written by its migrations); see `ServiceInstance`. */
export async function readInstanceNonce(db: Db): Promise<string> {
  const row = await db.em.fork().findOne(ServiceInstance, { id: 1 });
  if (!row) throw new Error('service_instance row missing: run the migrations (npm run migrate)');
  return row.nonce;
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
