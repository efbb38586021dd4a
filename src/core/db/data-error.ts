import { DriverException } from '@mikro-orm/core';
import { DATABASE_TIMEOUT } from './db-bound.ts';

/**
 * The SQLSTATE of a database error: MikroORM's converted exceptions (`em.execute`, the unit of
 * work) and the drivers' own errors (typed statements through Kysely, which MikroORM does not
 * convert) both carry it as `code`.
 */
function sqlState(err: unknown): string {
  if (err instanceof DriverException) return String(err.code ?? err.sqlState ?? '');
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : '';
}

/**
 * A PostgreSQL "data exception" (SQLSTATE class 22: value too long, invalid byte sequence,
 * numeric out of range...): the same input fails the same way on every attempt, so it is never
 * retried and never reported as a temporary failure.
 */
export function isDataError(err: unknown): boolean {
  return sqlState(err).startsWith('22');
}

/**
 * A unique key refused the write (SQLSTATE 23505): another request or a retry stored the same
 * row first. Callers catch it to answer with the row that won instead of failing.
 */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/**
 * The database did not answer in time: a request's own bound ran out (db-bound.ts: waiting for a
 * connection, or a statement the client gave up on), or the server cancelled a statement (SQLSTATE
 * 57014: a `statement_timeout` set by the operator, or `pg_cancel_backend`). Temporary: a retry may
 * succeed.
 */
export function isDatabaseTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === DATABASE_TIMEOUT || sqlState(err) === '57014';
}

/** Node's codes for a connection that could not be made or was cut (the pooler or server gone). */
const CONNECTION_LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The database could not be reached or dropped the connection: refused or reset (the server or a
 * pooler in front of it restarting), a connection exception (SQLSTATE class 08, which PgBouncer
 * also sends when it cannot reach the server), or the server shutting down (57P01–57P03).
 * Temporary: a retry may succeed. A statement whose connection was cut may have committed, so
 * callers retry with the same idempotency key (transaction id, event id).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const state = sqlState(err);
  if (state.startsWith('08') || /^57P0[123]$/.test(state)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_LOST.has(code)) return true;
  return err instanceof Error && /^Connection terminated/.test(err.message);
}
