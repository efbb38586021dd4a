import { preparedStatementName } from './sql.ts';
import { boundCheckouts, runStatement, type PgSession, type StatementConfig } from './pg-bounds.ts';
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import { Migrator } from '@mikro-orm/migrations';
import { mkdirSync } from 'node:fs';
import { ENTITIES } from '../entities/all.ts';
import { MIGRATIONS } from './migrations/list.ts';

export type Db = { orm: MikroORM; em: EntityManager; kind: 'postgresql' | 'pglite' };

export type DbOptions = {
  /** PostgreSQL URL; without it the embedded PGlite database is used. */
  databaseUrl?: string;
  /** PGlite cluster directory, or `memory://` (embedded mode only). */
  dataDir: string;
  poolMax?: number;
  /** Statements compiled once run as named prepared statements (PostgreSQL only; default true). */
  preparedStatements?: boolean;
  debug?: boolean;
};

const common = {
  entities: ENTITIES,
  extensions: [Migrator],
  migrations: {
    migrationsList: MIGRATIONS,
    path: 'src/core/db/migrations',
    pathTs: 'src/core/db/migrations',
    snapshot: false,
    emit: 'ts' as const,
    silent: true,
  },
  // Entities are plain data holders; we never rely on lazy loading across requests.
  forceUtcTimezone: true,
  allowGlobalContext: false,
  ensureDatabase: false,
};

/** Opens the database: PostgreSQL when `databaseUrl` is set, otherwise embedded PGlite. */
export async function createDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const orm = await PgORM.init({
      ...common,
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
      driverOptions: {
        onPoolCreated: (pool: ClientPool) => {
          releaseDroppedConnections(pool);
          // Request paths bound their waits (db-bound.ts); inert for every other caller.
          boundCheckouts(pool);
          instrumentStatements(pool, opts.preparedStatements !== false);
        },
      },
      debug: opts.debug ?? false,
    });
    return { orm, em: orm.em as unknown as EntityManager, kind: 'postgresql' };
  }
  if (!opts.dataDir.startsWith('memory:')) mkdirSync(opts.dataDir, { recursive: true });
  const orm = await PgliteORM.init({ ...common, dbName: opts.dataDir, debug: opts.debug ?? false });
  return { orm, em: orm.em as unknown as EntityManager, kind: 'pglite' };
}

type PooledClient = {
  release(err?: Error | boolean): void;
  once(event: 'end', fn: () => void): unknown;
  off(event: 'end', fn: () => void): unknown;
};
type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;
type ClientPool = {
  connect(...args: unknown[]): unknown;
  on(event: 'connect', fn: (client: PgSession & { query: QueryFn }) => void): unknown;
};

/**
 * Kysely's statements (text and values, answered by a promise) go through `runStatement`, which
 * applies a request path's bound (pg-bounds.ts). With `prepared`, statements compiled once (sql.ts
 * `compileStatement`: the sale, refund and ledger statements, the hot lookups) run as named
 * prepared statements: each connection parses and plans one the first time and then only binds
 * and executes it (Kysely passes no statement name, so the pool's clients add it by the
 * statement's text). Any other call (a cursor, a callback) runs as before. Behind PgBouncer, use
 * session pooling or a version that keeps prepared statements in transaction pooling (1.21+).
 */
function instrumentStatements(pool: ClientPool, prepared: boolean): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (config, values, callback) => {
      if (typeof config !== 'string' || callback !== undefined || (values !== undefined && !Array.isArray(values)))
        return query(config, values, callback);
      const name = prepared && values ? preparedStatementName(config) : undefined;
      const q: StatementConfig = name ? { name, text: config, values } : { text: config, values };
      return runStatement(client, query, q);
    };
  });
}

/**
 * Kysely (under MikroORM) hands a connection back to the pool only after its COMMIT or ROLLBACK
 * succeeded. On a connection the server dropped (restart, failover, `pg_terminate_backend`) that
 * statement fails, the client stays checked out for good, and a few drops exhaust the pool: every
 * later query waits forever (found by test/faults/pg-terminate.test.ts). So a checked-out client
 * whose connection ends goes back to the pool at once (which discards it, as it is broken), and
 * the holder's own release later is a no-op.
 */
function releaseDroppedConnections(pool: ClientPool): void {
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    if (args.length) return connect(...args); // callback form (pg's own pool.query): not Kysely's
    return (connect() as Promise<PooledClient>).then((client) => {
      const release = client.release.bind(client);
      let released = false;
      const onEnd = () => once(new Error('connection ended while checked out'));
      const once = (err?: Error | boolean) => {
        if (released) return;
        released = true;
        client.off('end', onEnd);
        release(err);
      };
      client.release = once;
      client.once('end', onEnd);
      return client;
    });
  };
}

/** Applies pending migrations (committed in `src/core/db/migrations`); returns their names. */
export async function migrate(db: Db): Promise<string[]> {
  const done = await db.orm.migrator.up();
  return done.map((m) => m.name);
}
