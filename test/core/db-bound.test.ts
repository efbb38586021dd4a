/**
 * The database bound of request paths (core/db-bound.ts, core/pg-bounds.ts): inside it, waiting for
 * a pool connection and each statement give up after the bound, the server is asked to cancel the
 * statement, and a connection whose statement was given up on is not reused; outside it (workers,
 * migrations, exports past their first page) nothing is cut. On PostgreSQL, once directly and once
 * through a proxy that can hang; in embedded mode (PGlite, no connections) the bound changes nothing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDb, migrate, type Db } from '../../src/core/db/orm.ts';
import {
  DatabaseTimeoutError,
  databaseBound,
  withDatabaseBound,
  withoutDatabaseBound,
} from '../../src/core/db/db-bound.ts';
import { isDatabaseTimeout } from '../../src/core/db/data-error.ts';
import { createMemoryQueue } from '../../src/queue/memory-queue.ts';
import { buildClickJob } from '../../src/core/jobs/click-job.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

const baseUrl = process.env.DATABASE_URL;
const name = `t_bound_${randomBytes(5).toString('hex')}`;
const BOUND_MS = 300;
/** What a busy, shared two-core machine may add to a bound. */
const SLACK_MS = 400;

const opened: Db[] = [];
async function admin<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  try {
    return await c.query<R>(sql, values);
  } finally {
    await c.end();
  }
}
async function open(url: string, poolMax = 1): Promise<Db> {
  const db = await createDb({ databaseUrl: url, dataDir: 'memory://', poolMax });
  opened.push(db);
  return db;
}
const dbUrl = () => {
  const u = new URL(baseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
};
const exec = async <T = Array<Record<string, unknown>>>(db: Db, sql: string): Promise<T> =>
  (await db.em.fork().execute(sql)) as T;
/** How long `call` took to settle, and its error if it failed. */
async function timed(call: () => Promise<unknown>): Promise<{ ms: number; err: unknown }> {
  const t = performance.now();
  let err: unknown = null;
  await call().catch((e: unknown) => {
    err = e;
  });
  return { ms: performance.now() - t, err };
}
const sleeping = async () =>
  (
    await admin<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = $1 and query like 'select pg_sleep(30)%' and state = 'active'`,
      [name],
    )
  ).rows[0]!.n;

test('the scope: bounded inside withDatabaseBound, unbounded inside withoutDatabaseBound and outside', async () => {
  expect(databaseBound()).toBe(0);
  await withDatabaseBound(1234, async () => {
    await Promise.resolve();
    expect(databaseBound()).toBe(1234);
    expect(withoutDatabaseBound(() => databaseBound())).toBe(0);
  });
  expect(withDatabaseBound(0, () => databaseBound())).toBe(0);
});

test('a job of the in-process queue runs without the bound of the request that enqueued it', async () => {
  const queue = createMemoryQueue();
  const seen: number[] = [];
  queue.process(
    'track',
    async () => {
      seen.push(databaseBound());
      return null;
    },
    1,
  );
  const job = buildClickJob({
    partnerCode: 'p1',
    affiliateUrl: 'https://shop.example/?aff=p1',
    receivedAt: new Date().toISOString(),
  });
  await withDatabaseBound(1234, () => queue.addAndWait('track', job, 5_000));
  expect(seen).toEqual([0]);
  await queue.close();
});

describe.runIf(!baseUrl)('embedded mode (PGlite)', () => {
  test('statements inside the bound run as usual', async () => {
    const db = await createDb({ dataDir: 'memory://' });
    opened.push(db);
    const rows = await withDatabaseBound(BOUND_MS, () => exec(db, 'select 1 as one'));
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe.runIf(baseUrl)('PostgreSQL', () => {
  let proxy: FreezableProxy;
  beforeAll(async () => {
    await admin(`create database ${name}`);
    await migrate(await open(dbUrl(), 2));
    proxy = await createFreezableProxy(dbUrl());
  });
  afterAll(async () => {
    proxy?.thaw();
    for (const db of opened.splice(0)) await db.orm.close();
    await proxy?.close();
    await admin(`drop database if exists ${name} with (force)`);
  });

  test('a statement past the bound fails as a database timeout, and the server cancels it; unbounded it runs', async () => {
    const db = await open(dbUrl());
    const { ms, err } = await timed(() => withDatabaseBound(BOUND_MS, () => exec(db, 'select pg_sleep(30)')));
    expect(isDatabaseTimeout(err)).toBe(true);
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    // Cancelled on the server too (its CancelRequest), not left running for a caller that has gone.
    expect(await waitFor(async () => (await sleeping()) === 0, 1_000)).toBe(true);
    // The same statement from a job or an export page is not cut.
    const unbounded = await timed(() => exec(db, `select pg_sleep(${(BOUND_MS * 2) / 1000})`));
    expect(unbounded.err).toBeNull();
    expect(unbounded.ms).toBeGreaterThanOrEqual(BOUND_MS * 2);
  });

  test('waiting for a pool connection gives up after the bound; the connection that comes later is not lost', async () => {
    const db = await open(dbUrl());
    let release!: () => void;
    const held = db.em.fork().transactional(async (em) => {
      await em.execute('select 1');
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 50));
    const { ms, err } = await timed(() => withDatabaseBound(BOUND_MS, () => exec(db, 'select 1')));
    expect(isDatabaseTimeout(err)).toBe(true);
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    release();
    await held;
    // The pool's only connection went back to it after the abandoned wait got it.
    expect(await withDatabaseBound(BOUND_MS, () => exec(db, 'select 1 as one'))).toEqual([{ one: 1 }]);
  });

  test('a hung server: a bounded statement gives up and its connection is closed; an unbounded one waits', async () => {
    const db = await open(proxy.url, 2);
    const pid = () =>
      withDatabaseBound(
        BOUND_MS,
        async () => (await exec<Array<{ pid: number }>>(db, 'select pg_backend_pid() as pid'))[0]!.pid,
      );
    const first = await pid();
    proxy.freeze();
    const bounded = await timed(() => withDatabaseBound(BOUND_MS, () => exec(db, 'select 2 as two')));
    expect(bounded.err).toBeInstanceOf(Error);
    expect(isDatabaseTimeout(bounded.err)).toBe(true);
    expect(bounded.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    // A job's statement is not bounded: it waits for the server and gets its answer.
    let answered = false;
    const unbounded = exec(db, 'select 3 as three').then((rows) => {
      answered = true;
      return rows;
    });
    await new Promise((r) => setTimeout(r, BOUND_MS * 2));
    expect(answered).toBe(false);
    proxy.thaw();
    expect(await unbounded).toEqual([{ three: 3 }]);
    // The connection given up on was closed (its server session is gone) and dropped by the pool,
    // not handed to the next caller: bounded statements work again, on another session.
    expect(await pid()).not.toBe(first);
    const gone = async () =>
      (await admin<{ n: number }>('select count(*)::int as n from pg_stat_activity where pid = $1', [first])).rows[0]!
        .n === 0;
    expect(await waitFor(gone, 2_000)).toBe(true);
  });

  test('the error a request path sees is recognised whether MikroORM wrapped it or not', () => {
    const own = new DatabaseTimeoutError('A database connection', BOUND_MS);
    expect(isDatabaseTimeout(own)).toBe(true);
    expect(isDatabaseTimeout(Object.assign(new Error('wrapped'), { code: own.code }))).toBe(true);
    expect(isDatabaseTimeout(Object.assign(new Error('canceling statement'), { code: '57014' }))).toBe(true);
    expect(isDatabaseTimeout(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isDatabaseTimeout(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});
