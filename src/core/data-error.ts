import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';

/**
 * A PostgreSQL "data exception" (SQLSTATE class 22: value too long, invalid byte sequence,
 * numeric out of range...): the same input fails the same way on every attempt, so it is never
 * retried and never reported as a temporary failure.
 */
export function isDataError(err: unknown): boolean {
  if (!(err instanceof DriverException)) return false;
  const code = err.code ?? err.sqlState ?? '';
  return typeof code === 'string' && code.startsWith('22');
}

/**
 * A unique key refused the write (SQLSTATE 23505): another request or a retry stored the same
 * row first. Callers catch it to answer with the row that won instead of failing.
 */
export function isUniqueViolation(err: unknown): err is UniqueConstraintViolationException {
  return err instanceof UniqueConstraintViolationException;
}
