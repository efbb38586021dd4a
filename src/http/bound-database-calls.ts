import type { H3 } from 'h3';
import { withDatabaseBound } from '../core/db/db-bound.ts';

/**
 * Every request's database calls are bounded by DB_QUERY_TIMEOUT_MS (core/db-bound.ts): waiting
 * for a connection and each statement. What runs past the bound becomes a `DatabaseTimeoutError`,
 * answered as a retryable 503 (error-table.ts). Routes whose reads may rightly take longer (export
 * downloads past their first page, rule previews) opt out with `withoutDatabaseBound`. 0 = off.
 */
export function boundDatabaseCalls(app: H3, timeoutMs: number): void {
  if (timeoutMs > 0) app.use((_event, next) => withDatabaseBound(timeoutMs, next));
}
