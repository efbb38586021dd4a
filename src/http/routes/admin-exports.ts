import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/errors.ts';
import { EXPORT_COLUMNS, EXPORT_KINDS, exportRows, type ExportRow } from '../../core/exports.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';

export const exportQuerySchema = z.strictObject({
  /** Rows created (sales: received) from this time, inclusive. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Rows created before this time. */
  to: z.iso.datetime({ offset: true }).optional(),
});

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is
 * prefixed with `'`: partner names, codes and transaction ids come from outside. Numbers are
 * written as they are.
 */
function cell(v: ExportRow[string]): string | number | boolean | null {
  if (typeof v !== 'string') return v;
  return /^[=+\-@\t\r]/.test(v) && !/^-?\d+$/.test(v) ? `'${v}` : v;
}

/** `GET /programs/:id/exports/:kind`: a CSV of commissions, sales or payouts, streamed page by page. */
export function registerExportRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  on('get', '/programs/:id/exports/:kind', async (e) => {
    const kind = e.context.params?.kind?.replace(/\.csv$/, '');
    if (!(EXPORT_KINDS as readonly string[]).includes(kind ?? ''))
      throw new AppError('not_found', `Unknown export; one of: ${EXPORT_KINDS.join(', ')}`);
    const k = kind as (typeof EXPORT_KINDS)[number];
    const q = validate(exportQuerySchema, Object.fromEntries(e.url.searchParams));
    const programId = num(e, 'id');
    const columns = [...EXPORT_COLUMNS[k]];
    const pages = exportRows(ctx.deps(), programId, k, {
      from: q.from ? new Date(q.from) : null,
      to: q.to ? new Date(q.to) : null,
    });
    // The first page is read before answering: a missing program is a 404, not a broken download.
    const first = await pages.next();
    const log = ctx.log;
    // Booleans as `true`/`false` (the library's default is `1` and an empty cell).
    const lines = (rows: ExportRow[]) =>
      Buffer.from(
        stringify(
          rows.map((r) => columns.map((c) => cell(r[c] ?? null))),
          { cast: { boolean: (v) => String(v) } },
        ),
      );
    async function* csv(): AsyncGenerator<Buffer> {
      yield Buffer.from(stringify([], { header: true, columns }));
      if (first.done) return;
      yield lines(first.value);
      try {
        for await (const page of pages) yield lines(page);
      } catch (err) {
        log.error({ err, programId, kind: k }, 'export stopped: the download is incomplete');
        throw err;
      }
    }
    const stamp = ctx.clock().toISOString().slice(0, 10);
    return new Response(Readable.toWeb(Readable.from(csv())) as ReadableStream, {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="program-${programId}-${k}-${stamp}.csv"`,
        'cache-control': 'no-store',
      },
    });
  });
}

export const exportOperations = [
  adminOperation('get', '/programs/:id/exports/:kind', 'exportCsv', 'Export commissions, sales or payouts as CSV', {
    params: { id: z.number().int().positive(), kind: z.enum(EXPORT_KINDS) },
    query: exportQuerySchema,
    description:
      "Oldest first, streamed (memory stays one page of 1,000 rows whatever the size). Amounts are integer minor units of the row's `currency`; times are ISO 8601 UTC. A `.csv` suffix on the kind is accepted. Cells a spreadsheet would run as a formula are prefixed with `'`.",
    errors: ['not_found', 'invalid_request'],
    responses: { 200: { description: 'The CSV (header row first)', contentType: 'text/csv' } },
  }),
];
