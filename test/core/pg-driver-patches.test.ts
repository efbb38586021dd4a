/**
 * The driver change of core/pg-driver-patches.ts for a connection the server drops while it is
 * checked out, against the real PostgreSQL (skipped in embedded mode: PGlite has no connections).
 * Named prepared statements, the other change: prepared-statements.test.ts.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { createDb, type Db } from '../../src/core/db/orm.ts';

const baseUrl = process.env.DATABASE_URL;
const POOL_MAX = 2;
let db: Db | undefined;

/** `p`, or a rejection naming what still waits after `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

afterAll(async () => {
  if (db) await within(db.orm.close(), 5_000, 'closing the pool');
});

describe.runIf(baseUrl)('a connection the server drops while checked out (PostgreSQL)', () => {
  test('transactions cut by pg_terminate_backend hand their connections back: later queries are served', async () => {
    db = await createDb({ databaseUrl: baseUrl!, dataDir: 'memory://', poolMax: POOL_MAX });
    // As many drops as the pool has connections: each ends its own session inside a transaction,
    // so the ROLLBACK that follows fails on a connection that is gone.
    for (let i = 0; i < POOL_MAX; i++) {
      const cut = db.em.fork().transactional((em) => em.execute('select pg_terminate_backend(pg_backend_pid())'));
      await expect(within(cut, 5_000, `transaction ${i + 1}`)).rejects.toThrow(/terminat|not queryable|ended/i);
    }
    // Left checked out, those connections would fill the pool and this would wait forever.
    const later = db.em.fork().execute<Array<{ one: number }>>('select 1 as one');
    expect(await within(later, 5_000, 'a query after the drops')).toEqual([{ one: 1 }]);
  });
});
