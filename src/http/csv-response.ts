import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/errors.ts';
import { EXPORT_COLUMNS, exportRows, type ExportKind, type ExportRow, type ExportScope } from '../core/exports.ts';

export const exportQuerySchema = z.strictObject({
  /** Rows created (sales: received) from this time, inclusive. */
  from: z.iso.datetime({ offset: true }).optional(),
  /** Rows created before this time. */
  to: z.iso.datetime({ offset: true }).optional(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;

export const exportWindow = (q: ExportQuery) => ({
  from: q.from ? new Date(q.from) : null,
  to: q.to ? new Date(q.to) : null,
});

/** The kind in the path (a `.csv` suffix is accepted), else 404 naming the kinds. */
export function exportKind(raw: string | undefined, kinds: readonly ExportKind[]): ExportKind {
  const kind = raw?.replace(/\.csv$/, '') ?? '';
  if (!(kinds as readonly string[]).includes(kind))
    throw new AppError('not_found', `Unknown export; one of: ${kinds.join(', ')}`);
  return kind as ExportKind;
}

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is
 * prefixed with `'`: partner names, codes and transaction ids come from outside. Numbers, and
 * decimal amounts like `-12.50`, are written as they are.
 */
function cell(v: ExportRow[string]): string | number | boolean | null {
  if (typeof v !== 'string') return v;
  return /^[=+\-@\t\r]/.test(v) && !/^-?\d+(\.\d+)?$/.test(v) ? `'${v}` : v;
}

/**
 * An export as a streamed CSV download (header row first, then page by page). The first page is
 * read before answering: a missing program or partner is a 404, not a broken download.
 */
export async function csvResponse(
  ctx: RouteContext,
  programId: number,
  kind: ExportKind,
  scope: ExportScope,
  filename: string,
): Promise<Response> {
  const columns = [...EXPORT_COLUMNS[kind]];
  const pages = exportRows(ctx.deps(), programId, kind, scope);
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
      log.error(
        { err, programId, kind, partnerId: scope.partnerId ?? null },
        'export stopped: the download is incomplete',
      );
      throw err;
    }
  }
  const stamp = ctx.clock().toISOString().slice(0, 10);
  return new Response(Readable.toWeb(Readable.from(csv())) as ReadableStream, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}-${kind}-${stamp}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
