/**
 * Statements compiled once run as named prepared statements on PostgreSQL connections: prepared
 * on a connection's first call, reused after, and not at all when DB_PREPARED_STATEMENTS is off.
 * Production mode only: PGlite runs in-process and has no connections to prepare on.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { createDb, migrate, type Db } from '../../src/core/db/orm.ts';
import { lockBalance } from '../../src/core/ledger/ledger.ts';

const baseUrl = process.env.DATABASE_URL;
const name = `t_prep_${randomBytes(5).toString('hex')}`;
const opened: Db[] = [];

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** One connection, so the session the statements were prepared on is the one asked about. */
async function open(preparedStatements: boolean): Promise<Db> {
  const url = new URL(baseUrl!);
  url.pathname = `/${name}`;
  const db = await createDb({ databaseUrl: url.toString(), dataDir: 'memory://', poolMax: 1, preparedStatements });
  opened.push(db);
  return db;
}

async function prepared(db: Db): Promise<string[]> {
  const rows = await db.em.fork().execute<{ name: string }[]>(`select name from pg_prepared_statements order by name`);
  return rows.map((r) => r.name);
}

afterAll(async () => {
  for (const db of opened) await db.orm.close();
  if (baseUrl) await admin(`drop database if exists ${name} with (force)`);
});

describe.runIf(baseUrl)('prepared statements (PostgreSQL)', () => {
  test('a statement compiled once is prepared on the first call and reused after; off means never', async () => {
    await admin(`create database ${name}`);
    const on = await open(true);
    await migrate(on);
    expect(await prepared(on)).toEqual([]);
    const first = await on.em.fork().transactional((em) => lockBalance(em, 1, 'USD'));
    expect(first).toEqual({ balanceCents: 0n, openPayoutsCents: 0n });
    const names = await prepared(on);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^c_[0-9a-f]{24}$/);
    for (let i = 0; i < 3; i++) await on.em.fork().transactional((em) => lockBalance(em, 1, 'USD'));
    expect(await prepared(on)).toEqual(names);

    const off = await open(false);
    expect(await off.em.fork().transactional((em) => lockBalance(em, 1, 'USD'))).toEqual(first);
    expect(await prepared(off)).toEqual([]);
  });
});
