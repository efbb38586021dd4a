import { z } from 'zod';
import { AppError } from '../core/shared/errors.ts';

/** Parses with a zod schema; failures become 400 `invalid_request` listing each bad field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  const issues = res.error.issues.map((i) => ({
    field: i.path.join('.') || null,
    message: i.message,
    ...('keys' in i ? { keys: i.keys } : {}),
  }));
  const first = issues[0]!; // a failed parse has at least one issue
  throw new AppError('invalid_request', `${first.field ? `${first.field}: ` : ''}${first.message}`, { issues });
}

/** Largest row id (PostgreSQL `int`/`serial`): a larger number can name no row, and comparing it with an int column is a database error. */
export const MAX_ROW_ID = 2_147_483_647;
export const rowId = z.number().int().positive().max(MAX_ROW_ID);

/** `?before=`: keyset paging, rows older than this id (the last id of the previous page); reads one page at any depth. */
export const keysetBefore = z.coerce
  .number()
  .int()
  .positive()
  .max(MAX_ROW_ID)
  .describe('Keyset: rows with a smaller id (the last id of the previous page); not with offset')
  .optional();

/**
 * Validates a list's query, where `offset` (by position) and `before` (keyset: rows with a smaller
 * id than the previous page's last) are two ways to reach a page: both at once is refused with a
 * 400 `invalid_request` naming `offset`, rather than one of them silently applied after the other.
 */
export function validatePage<S extends z.ZodType>(schema: S, input: Record<string, string>): z.output<S> {
  if (input.before !== undefined && input.offset !== undefined) {
    const message = 'give either before (the last id of the previous page) or offset, not both';
    throw new AppError('invalid_request', `offset: ${message}`, { issues: [{ field: 'offset', message }] });
  }
  return validate(schema, input);
}
