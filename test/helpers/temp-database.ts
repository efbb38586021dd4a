/**
 * PostgreSQL databases for the benchmark and the fault tests: fresh ones on the shared server,
 * migrated by the service itself (`node src/main.ts migrate`), dropped when done.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateDatabase } from './service-process.ts';

export const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type TempDatabase = { name: string; url: string; pool: pg.Pool; drop(): Promise<void> };

/**
 * A fresh, migrated database on the shared PostgreSQL (migrated by the service in `dir`, this
 * checkout by default); `drop()` removes it.
 */
export async function createTempDatabase(prefix: string, dir?: string): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const db = await useExistingDatabase(name, dir);
  return {
    ...db,
    async drop() {
      await db.drop();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * An existing database on the shared PostgreSQL, migrated like a temporary one; `drop()` only
 * closes the pool (the database and its rows stay).
 */
export async function useExistingDatabase(name: string, dir?: string): Promise<TempDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const u = new URL(BASE_DATABASE_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  await migrateDatabase(url, dir);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  return { name, url, pool, drop: () => pool.end().catch(() => {}) };
}

/** Runs one statement on the maintenance database. */
export async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}
