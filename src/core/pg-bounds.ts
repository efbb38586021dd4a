import { DatabaseTimeoutError, databaseBound } from './db-bound.ts';

/**
 * How the bound of db-bound.ts is applied to `pg` (PostgreSQL mode; orm.ts installs it on the
 * pool). Three parts, each only inside a bounded scope:
 * - waiting for a pool connection gives up after the bound (a connection that comes later goes
 *   straight back to the pool);
 * - the server cancels a statement running past the bound (`statement_timeout`, set on the
 *   connection as it is checked out, and reset when an unbounded caller takes it next), so a live
 *   but slow server does not keep working for a caller that has gone;
 * - the client gives up on a statement whose answer does not come within the bound (pg's own
 *   `query_timeout`), which is what ends a wait on a hung server: it cannot cancel anything.
 */

/** pg's error for a statement past its `query_timeout` (pg/lib/client.js). */
const PG_QUERY_TIMEOUT = 'Query read timeout';

export type StatementConfig = { text: string; values?: unknown[]; name?: string };
type PgQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Runs a statement with pg's `query_timeout` set to the caller's bound. A connection whose
 * statement timed out is closed: the statement may still be running there, or its transaction's
 * ROLLBACK may never have been sent, and no later caller may inherit that session (pg-pool drops a
 * client that has ended). The caller gets a `DatabaseTimeoutError`.
 */
export function runStatement(client: { end(): Promise<void> }, query: PgQuery, q: StatementConfig): unknown {
  const ms = databaseBound();
  if (!ms) return query(q);
  return (query({ ...q, query_timeout: ms }) as Promise<unknown>).catch((err: unknown) => {
    if (!(err instanceof Error) || err.message !== PG_QUERY_TIMEOUT) throw err;
    client.end().catch(() => {});
    throw new DatabaseTimeoutError("A database statement's answer", ms);
  });
}

type Checkout = { release(err?: Error | boolean): void; query(text: string): Promise<unknown> };
type Pool = { connect(...args: unknown[]): unknown };

/** Bounds the promise form of `pool.connect` (Kysely's) and keeps `statement_timeout` in step with the caller. */
export function boundCheckouts(pool: Pool): void {
  const connect = pool.connect.bind(pool);
  // The statement_timeout each connection was last given (absent: the session's default).
  const applied = new WeakMap<Checkout, number>();
  const withStatementTimeout = async (client: Checkout, ms: number): Promise<Checkout> => {
    if ((applied.get(client) ?? 0) === ms) return client;
    try {
      // `ms` is the configured integer (config.ts), never input.
      await client.query(ms ? `set statement_timeout = ${ms}` : 'reset statement_timeout');
    } catch (err) {
      client.release(err instanceof Error ? err : true);
      throw err;
    }
    applied.set(client, ms);
    return client;
  };
  pool.connect = (...args: unknown[]) => {
    if (args.length) return connect(...args); // callback form (pg's own pool.query): not Kysely's
    const ms = databaseBound();
    const checkout = (connect() as Promise<Checkout>).then((client) => withStatementTimeout(client, ms));
    return ms ? within(checkout, ms) : checkout;
  };
}

function within(checkout: Promise<Checkout>, ms: number): Promise<Checkout> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new DatabaseTimeoutError('A database connection', ms));
    }, ms);
    checkout.then(
      (client) => {
        if (late) client.release();
        else {
          clearTimeout(timer);
          resolve(client);
        }
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
