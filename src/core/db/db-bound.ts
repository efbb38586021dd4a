import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The bound a request path puts on its own database calls (DB_QUERY_TIMEOUT_MS). A hung PostgreSQL
 * (a network partition, a stopped server) keeps its connections open and sends no error, so
 * without it a request would wait as long as the hang. Inside `withDatabaseBound`, on PostgreSQL
 * (orm.ts, pg-bounds.ts), waiting for a pool connection and each statement give up after the bound
 * with a `DatabaseTimeoutError`, and a statement given up on is cancelled on the server too.
 * Outside it (workers, sweepers, migrations, the CLI, exports after their first page, rule
 * previews) nothing changes: their long statements are not cut by a bound meant for requests.
 *
 * Per call, not per request: a request of many quick statements may take longer than the bound,
 * but the first call that finds the database hung ends it. Embedded mode (PGlite) runs in process,
 * with no connection to hang: the bound has no effect there.
 *
 * One storage per process (as MikroORM's RequestContext): what it holds belongs to the request
 * that set it and to the calls made on its behalf.
 */
const scope = new AsyncLocalStorage<number>();

/** Runs `fn` with its database calls bounded by `timeoutMs` (0: unbounded). */
export function withDatabaseBound<T>(timeoutMs: number, fn: () => T): T {
  return scope.run(timeoutMs, fn);
}

/** Runs `fn` unbounded, whoever called it (a long read on behalf of a request, a job). */
export function withoutDatabaseBound<T>(fn: () => T): T {
  return scope.run(0, fn);
}

/** The bound of the calls made here, in milliseconds; 0 = none. */
export function databaseBound(): number {
  return scope.getStore() ?? 0;
}

/** `code` of a `DatabaseTimeoutError`; kept when MikroORM wraps it in a DriverException. */
export const DATABASE_TIMEOUT = 'database_timeout';

/** A pool connection or a statement did not come within the caller's bound (the request answers 503). */
export class DatabaseTimeoutError extends Error {
  readonly code = DATABASE_TIMEOUT;
  constructor(what: string, ms: number) {
    super(`${what} did not come within ${ms} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}
