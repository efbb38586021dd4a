import { z } from 'zod';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/errors.ts';
import { withoutDatabaseBound } from '../core/db-bound.ts';
import { EXPORT_COLUMNS, exportCells, exportRows, type ExportKind, type ExportScope } from '../core/exports.ts';
import { CsvEncoder } from './csv-encoder.ts';

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
 * An export as a streamed CSV download (header row first, then page by page). The first page is
 * read before answering, within the request's database bound: a missing program or partner is a
 * 404, a hung database a 503, not a broken download. The later pages are not bound. The body
 * is pulled: the next page is read only when the one before is taken by the response, which takes
 * it only when the socket has drained, so at most one page waits whatever the client's speed.
 */
export async function csvResponse(
  ctx: RouteContext,
  programId: number,
  kind: ExportKind,
  scope: ExportScope,
  filename: string,
): Promise<Response> {
  const columns = EXPORT_COLUMNS[kind];
  const pages = exportRows(ctx.deps(), programId, kind, scope);
  const first = await pages.next();
  const log = ctx.log;
  const header = new CsvEncoder(
    columns.map((_, i) => (names: readonly string[]) => names[i]),
    false,
  ).encode([columns]);
  const rows = new CsvEncoder(exportCells(kind));
  // Encoded here, not in `start`: a closure would keep the first page for the whole download.
  let firstPage = first.done ? null : rows.encode(first.value);
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(header);
        if (firstPage) controller.enqueue(firstPage);
        else controller.close();
        firstPage = null;
      },
      async pull(controller) {
        try {
          // The download has begun (200): its later pages are read without the request's
          // database bound, whoever reads the body (the server's writer, today outside the
          // request's scope anyway): a bound could only cut the download short now.
          const page = await withoutDatabaseBound(() => pages.next());
          if (page.done) controller.close();
          else controller.enqueue(rows.encode(page.value));
        } catch (err) {
          log.error(
            { err, programId, kind, partnerId: scope.partnerId ?? null },
            'export stopped: the download is incomplete',
          );
          controller.error(err);
        }
      },
      async cancel() {
        await pages.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  const stamp = ctx.clock().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}-${kind}-${stamp}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
