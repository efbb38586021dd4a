import { createHash } from 'node:crypto';
import { boundCheckouts, runStatement, type PgSession, type StatementConfig } from './pg-bounds.ts';

/**
 * Every run-time change the service makes to the `pg` driver that MikroORM and Kysely drive
 * (PostgreSQL mode; orm.ts installs them on the pool it creates, `patchPgPool`). Two work around
 * upstream behaviour; no pool option does the same (pg-pool's options act on idle or new clients,
 * never on one that is checked out, and its `Client` option would only move the same `query`
 * override into a subclass):
 *
 * 1. `client.query`: named prepared statements. Kysely's PostgresDialect runs every statement as
 *    `client.query(sql, parameters)`, with no statement name, so pg never prepares one: each call
 *    is parsed and planned again (https://github.com/kysely-org/kysely/issues/329, closed without
 *    a change: the dialect does not use them; the way round offered there, compiling and calling
 *    pg yourself, would leave MikroORM's transaction). The statements compiled once (sql.ts
 *    `compileStatement`) are registered here by their text, and the pool's clients add the name.
 *    Test: test/core/prepared-statements.test.ts.
 * 2. `pool.connect`: a connection the server dropped is handed back. Kysely's controlled
 *    transaction (MikroORM's `begin`/`commit`/`rollback` use `startTransaction`) releases its
 *    connection only after BEGIN, COMMIT or ROLLBACK succeeded, with no `finally`; on a connection
 *    the server ended (restart, failover, `pg_terminate_backend`) the ROLLBACK fails, the client
 *    stays checked out for good, and as many drops as the pool's `max` leave every later query
 *    waiting forever (https://github.com/kysely-org/kysely/issues/1990, open; kysely 0.29.6,
 *    installed here, still releases only on success). Test: test/core/pg-driver-patches.test.ts.
 *
 * The request-path bounds (pg-bounds.ts: `boundCheckouts` on `pool.connect`, `runStatement` in
 * the `query` wrapper) are the service's own, not workarounds; they are installed here too, so
 * this is the one place the pool and its clients are wrapped.
 */

type PooledClient = {
  release(err?: Error | boolean): void;
  once(event: 'end', fn: () => void): unknown;
  off(event: 'end', fn: () => void): unknown;
};
type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;
export type ClientPool = {
  connect(...args: unknown[]): unknown;
  on(event: 'connect', fn: (client: PgSession & { query: QueryFn }) => void): unknown;
};

/** Installs the driver changes on a new pool; `preparedStatements: false` runs nothing prepared. */
export function patchPgPool(pool: ClientPool, opts: { preparedStatements: boolean }): void {
  releaseDroppedConnections(pool);
  // Request paths bound their waits (db-bound.ts); inert for every other caller.
  boundCheckouts(pool);
  instrumentStatements(pool, opts.preparedStatements);
}

/**
 * The SQL text of every statement compiled once, with the name PostgreSQL connections prepare it
 * under: parsed and planned once per connection instead of on every call. Filled as modules load,
 * never after, so it is the same set in every process.
 */
const PREPARED_NAMES = new Map<string, string>();

/** Registers a statement compiled once (sql.ts `compileStatement`) to run prepared. */
export function registerPreparedStatement(text: string): void {
  PREPARED_NAMES.set(text, `c_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`);
}

/**
 * Kysely's statements (text and values, answered by a promise) go through `runStatement`, which
 * applies a request path's bound (pg-bounds.ts). With `prepared`, the registered statements run as
 * named prepared statements: each connection parses and plans one the first time and then only
 * binds and executes it. Any other call (a cursor, a callback) runs as before. Behind PgBouncer,
 * use session pooling or a version that keeps prepared statements in transaction pooling (1.21+).
 */
function instrumentStatements(pool: ClientPool, prepared: boolean): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (config, values, callback) => {
      if (typeof config !== 'string' || callback !== undefined || (values !== undefined && !Array.isArray(values)))
        return query(config, values, callback);
      const name = prepared && values ? PREPARED_NAMES.get(config) : undefined;
      const q: StatementConfig = name ? { name, text: config, values } : { text: config, values };
      return runStatement(client, query, q);
    };
  });
}

/**
 * A checked-out client whose connection ends goes back to the pool at once (which discards it, as
 * it is broken), and the holder's own release later is a no-op (found by
 * test/faults/pg-terminate.test.ts).
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
