import { connect } from 'node:net';
import { serialize } from 'pg-protocol';
import { DatabaseTimeoutError, databaseBound } from './db-bound.ts';

/**
 * How the bound of db-bound.ts is applied to `pg` (PostgreSQL mode; pg-driver-patches.ts installs
 * it on the pool), only inside a bounded scope:
 * - waiting for a pool connection gives up after the bound (a connection that comes later goes
 *   straight back to the pool);
 * - the client gives up on a statement whose answer has not come within the bound (pg's own
 *   `query_timeout`): what ends a wait on a hung server, which can cancel nothing;
 * - it then asks the server to cancel that statement (the protocol's CancelRequest, on a socket of
 *   its own), so a server that is slow but alive stops working for a caller that has gone, and
 *   closes the connection.
 *
 * Not a session `statement_timeout`: a `SET` would cost a round trip each time a connection passes
 * between a job and a request (the `serve` role), and behind PgBouncer in transaction pooling it
 * would stay on whichever server connection ran it, bounding other clients' statements, jobs'
 * included. The cancel concerns one statement of one session, and only when the bound ran out.
 */

/** pg's error for a statement past its `query_timeout` (pg/lib/client.js). */
const PG_QUERY_TIMEOUT = 'Query read timeout';

export type StatementConfig = { text: string; values?: unknown[]; name?: string };
type PgQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;
/** What pg's Client knows of its session (`processID`, `secretKey`: its BackendKeyData). */
export type PgSession = {
  end(): Promise<void>;
  host: string;
  port: number;
  processID: number | null;
  secretKey: number | null;
};

/**
 * Runs a statement with pg's `query_timeout` set to the caller's bound. A statement given up on is
 * cancelled on the server, and its connection closed: the statement may still be running there,
 * or its transaction's ROLLBACK may never have been sent, and no later caller may inherit that
 * session (pg-pool drops a client that has ended). The caller gets a `DatabaseTimeoutError`.
 */
export function runStatement(client: PgSession, query: PgQuery, q: StatementConfig): unknown {
  const ms = databaseBound();
  if (!ms) return query(q);
  return (query({ ...q, query_timeout: ms }) as Promise<unknown>).catch((err: unknown) => {
    if (!(err instanceof Error) || err.message !== PG_QUERY_TIMEOUT) throw err;
    cancelOnServer(client, ms);
    client.end().catch(() => {});
    throw new DatabaseTimeoutError("A database statement's answer", ms);
  });
}

/**
 * Sends the session's CancelRequest (what libpq's PQcancel and pg's own cancel send: a new
 * connection, no authentication, the session's key). Fire and forget: a hung server may never
 * take it, so the socket is dropped after `ms`; a server that has ended the session ignores it.
 * Not pg's `Client#cancel`: it is undocumented, needs a second Client and the query still active,
 * and sets no timeout on its socket.
 */
function cancelOnServer(client: PgSession, ms: number): void {
  if (client.processID === null || client.secretKey === null) return;
  const socket = client.host.startsWith('/')
    ? connect(`${client.host}/.s.PGSQL.${client.port}`)
    : connect(client.port, client.host);
  socket.setTimeout(ms, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.once('connect', () => socket.end(serialize.cancel(client.processID!, client.secretKey!)));
}

type Checkout = { release(err?: Error | boolean): void };
type Pool = { connect(...args: unknown[]): unknown };

/** Bounds the promise form of `pool.connect` (Kysely's) by the caller's bound, if any. */
export function boundCheckouts(pool: Pool): void {
  const connectToPool = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    if (args.length) return connectToPool(...args); // callback form (pg's own pool.query): not Kysely's
    const ms = databaseBound();
    const checkout = connectToPool() as Promise<Checkout>;
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
