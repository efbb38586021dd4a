/**
 * Upgrading a database connected under the one-secret schema: each connection's secret becomes
 * its one `live` secret and keeps verifying.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { createDb, migrate, type Db } from '../../src/core/db/orm.ts';
import { loadVerificationSecrets } from '../../src/core/integrations/provider-secrets.ts';
import { createCoreCaches } from '../../src/core/core-caches.ts';

let db: Db | null = null;
let dropDatabase: (() => Promise<void>) | null = null;
afterAll(async () => {
  await db?.orm.close();
  await dropDatabase?.();
});

async function openFreshDb(): Promise<Db> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) return createDb({ dataDir: 'memory://' });
  const name = `t_mig_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  dropDatabase = async () => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return createDb({ databaseUrl: url.toString(), dataDir: 'memory://' });
}

test('a connection made before several secrets existed keeps its secret, labelled live', async () => {
  db = await openFreshDb();
  await db.orm.migrator.up({ to: 'Migration20261122023611_initial' });
  const conn = db.em.getConnection();
  await conn.execute(`insert into program (name, created_at) values ('Old shop', now())`);
  await conn.execute(
    `insert into provider_connection (program_id, provider, signing_secret, created_at, updated_at) values (1, 'stripe', 'whsec_from_before', now(), '2026-01-02T03:04:05Z')`,
  );

  expect(await migrate(db)).toContain('Migration20261123093000_provider_secrets');

  const caches = createCoreCaches(() => new Date());
  const secrets = await loadVerificationSecrets({ em: db.em.fork(), caches }, 1, 'stripe');
  expect(secrets).toEqual([{ id: expect.any(Number), label: 'live', secret: 'whsec_from_before', expiresAt: null }]);
  expect(await loadVerificationSecrets({ em: db.em.fork(), caches }, 1, 'paddle')).toBeNull();
});
