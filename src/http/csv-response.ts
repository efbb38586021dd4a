import { z } from 'zod';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/shared/errors.ts';
import { withoutDatabaseBound } from '../core/db/db-bound.ts';
import {
  EXPORT_COLUMNS,
  exportCells,
  exportRows,
  type ExportKind,
  type ExportScope,
} from '../core/reporting/exports.ts';
import { CsvEncoder } from './csv-encoder.ts';
import { partnerKey, programKey } from '../read-routing.ts';
import { createTimeSlice } from '../core/shared/time-slice.ts';

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
 *
 * One export per `slot.key` at a time (429 `rate_limited` meanwhile), held until the download
 * ends, fails or is dropped by the client; at EXPORT_TIMEOUT_MS the download is cut off (the
 * connection closes before the end of the chunked body, which clients report as incomplete).
 */
export async function csvResponse(
  ctx: RouteContext,
  programId: number,
  kind: ExportKind,
  scope: ExportScope,
  filename: string,
  gate: { key: string; label: string },
): Promise<Response> {
  const columns = EXPORT_COLUMNS[kind];
  // On the read replica when it may serve this program (read-routing.ts).
  const keys = [programKey(programId), ...(scope.partnerId ? [partnerKey(scope.partnerId)] : [])];
  const source = await ctx.reads.depsFor(keys);
  const slot = ctx.reports.acquire(gate.key, gate.label, ctx.config.EXPORT_TIMEOUT_MS);
  let pages = exportRows(source.deps, programId, kind, scope);
  const end = () => {
    slot.release();
    void pages.return(undefined);
  };
  let first: Awaited<ReturnType<typeof pages.next>>;
  try {
    try {
      first = await pages.next();
    } catch (err) {
      if (!source.onReplica || err instanceof AppError) throw err;
      // The replica failed before the download began: the primary serves it instead.
      ctx.reads.failed(err);
      void pages.return(undefined);
      pages = exportRows(ctx.deps(), programId, kind, scope);
      first = await pages.next();
    }
    slot.signal.throwIfAborted();
  } catch (err) {
    end();
    throw err;
  }
  const log = ctx.log;
  const context = { programId, kind, partnerId: scope.partnerId ?? null };
  const slice = createTimeSlice(slot.signal);
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
        else {
          controller.close();
          end();
        }
        firstPage = null;
        // At the limit, also when the client has stopped reading (no pull to notice it).
        slot.signal.addEventListener(
          'abort',
          () => {
            log.warn({ ...context, limitMs: ctx.config.EXPORT_TIMEOUT_MS }, 'export cut off at its time limit');
            controller.error(slot.signal.reason);
            end();
          },
          { once: true },
        );
      },
      async pull(controller) {
        try {
          slice.begin();
          // The download has begun (200): its later pages are read without the request's
          // database bound, whoever reads the body: a bound could only cut the download short now.
          const page = await withoutDatabaseBound(() => pages.next());
          if (slot.signal.aborted) return;
          if (page.done) {
            controller.close();
            end();
            return;
          }
          controller.enqueue(rows.encode(page.value));
          // Reading and encoding a page is the export's slice; it rests twice as long before the next.
          if (slice.spent()) await slice.next();
        } catch (err) {
          if (slot.signal.aborted) return; // cut off at the limit: said and done by the abort listener
          log.error({ err, ...context }, 'export stopped: the download is incomplete');
          controller.error(err);
          end();
        }
      },
      cancel() {
        end();
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
