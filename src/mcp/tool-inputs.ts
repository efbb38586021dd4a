import { z } from 'zod';
import { DAY_MS } from '../core/deps.ts';
import { AppError } from '../core/shared/errors.ts';

/** A day (`2026-11-01`, UTC) or an instant with its offset. */
const instant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** The period inputs of the reporting tools. */
export const periodInput = {
  from: instant
    .optional()
    .describe('Start (inclusive): a UTC day or an ISO 8601 instant; default: this month’s first day'),
  to: instant
    .optional()
    .describe('End (exclusive; a day counts whole): a UTC day or an ISO 8601 instant; default: now'),
};

const MAX_DAYS = 366;

/**
 * [from, to) of a period input at `now`: a day-only `to` includes that day. At most 366 days.
 * @throws AppError `invalid_request`.
 */
export function resolvePeriod(now: Date, input: { from?: string; to?: string }): { from: Date; to: Date } {
  const to = input.to
    ? new Date(Date.parse(input.to) + (input.to.length === 10 ? DAY_MS : 0))
    : new Date(now.getTime() + 1);
  const from = input.from ? new Date(input.from) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  if (!(from < to) || to.getTime() - from.getTime() > MAX_DAYS * DAY_MS)
    throw new AppError('invalid_request', `from must be before to, at most ${MAX_DAYS} days apart`, { field: 'from' });
  return { from, to };
}

const id = z.number().int().positive().max(2_147_483_647);
/** A row id input. */
export const idInput = (what: string) => id.describe(what);

/** Keyset paging of the list tools: newest first, `before` = the previous page's `next_before`. */
export const pageInput = {
  limit: z.number().int().min(1).max(100).default(20).describe('Rows per page (1–100)'),
  before: id.optional().describe('The `next_before` of the previous page'),
};

/** The `next_before` of a page: its last id when the page is full, else null (no more rows). */
export const nextBefore = (rows: ReadonlyArray<{ id: unknown }>, limit: number): number | null =>
  rows.length === limit ? Number(rows[rows.length - 1]!.id) : null;

/** The output member of a page's `next_before`. */
export const nextBeforeOutput = z.number().int().nullable().describe('Pass as `before` for the next page; null: none');
