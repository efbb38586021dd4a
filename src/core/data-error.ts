import { DriverException } from '@mikro-orm/core';

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
