import type { CoreDeps } from '../deps.ts';
import { Notification, type INotification } from '../entities/notification.ts';
import type { IWebhookEvent } from '../entities/webhook-event.ts';
import { Sale } from '../entities/sale.ts';
import { TestEvent } from '../entities/test-event.ts';
import { findLinkedTransactionId } from '../refunds/link-payment.ts';
import { typedSql } from '../db/sql.ts';
import { sql } from 'kysely';

/** An inbox row as the webhook worker reads it: without its raw payload. */
export type InboxRow = Pick<
  IWebhookEvent,
  | 'id'
  | 'provider'
  | 'program'
  | 'eventType'
  | 'normalised'
  | 'status'
  | 'outcome'
  | 'error'
  | 'attempts'
  | 'processedAt'
>;

export type NoteData = Pick<INotification, 'program' | 'kind' | 'partnerId' | 'commissionId' | 'payload' | 'createdAt'>;

/** A row to write back, with the advertiser notification written beside it (its id is set then). */
export type RowWrite = { row: InboxRow; note: { data: NoteData; id?: number } | null };

/**
 * The rows by id, read by one plain statement. The raw payload is kept for people, never read
 * here: not loading it spares parsing a large document per event. Not through the ORM: `em.find`
 * cost about 95 µs of CPU per row against 15 for the same select (hydration of the two JSON
 * documents; `npm run bench`). The rows are written back by one statement too (`writeRows`).
 */
export async function readInboxRows(em: CoreDeps['em'], ids: number[]): Promise<Map<number, InboxRow>> {
  const rows = await typedSql(em)
    .selectFrom('webhook_event')
    .select([
      'id',
      'provider',
      'program_id',
      'event_type',
      'normalised',
      'status',
      'outcome',
      'error',
      'attempts',
      'processed_at',
    ])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        provider: r.provider,
        program: Number(r.program_id),
        eventType: r.event_type,
        normalised: typeof r.normalised === 'string' ? JSON.parse(r.normalised) : r.normalised,
        status: r.status,
        outcome: typeof r.outcome === 'string' ? JSON.parse(r.outcome) : r.outcome,
        error: r.error,
        attempts: Number(r.attempts),
        processedAt: r.processed_at === null ? null : new Date(r.processed_at as Date | string),
      },
    ]),
  );
}

/**
 * Writes the rows that ran (status, outcome, error, attempts, processed time) in one statement;
 * with the advertiser notifications some of them created, in one transaction.
 */
export async function writeRows(em: CoreDeps['em'], writes: RowWrite[]): Promise<void> {
  if (!writes.length) return;
  const rows = writes.map((w) => w.row);
  // Raw: one UPDATE ... FROM (VALUES ...) for the whole batch, a table of literal rows the
  // typed builder cannot express.
  const sql = `update webhook_event as w
       set status = v.status, outcome = v.outcome, error = v.error, attempts = v.attempts, processed_at = v.processed_at
      from (values ${rows.map(() => '(?::int, ?, ?::jsonb, ?, ?::int, ?::timestamptz)').join(', ')})
        as v(id, status, outcome, error, attempts, processed_at)
     where w.id = v.id`;
  const params = rows.flatMap((r) => [
    r.id,
    r.status,
    r.outcome === null || r.outcome === undefined ? null : JSON.stringify(r.outcome),
    r.error ?? null,
    r.attempts,
    r.processedAt ?? null,
  ]);
  const notes = writes.flatMap((w) => (w.note ? [w.note] : []));
  if (!notes.length) {
    await em.execute(sql, params);
    return;
  }
  await em.transactional(async (tx) => {
    for (const note of notes) note.id = (await tx.insert(Notification, note.data)) as number;
    await tx.execute(sql, params);
  });
}

/**
 * Whether a processed inbox row of the same provider and program carried the sale `transactionId`
 * and no sale (live or test) exists: that event recorded none (`no_attribution`,
 * `window_expired`...). The sales are re-checked after the inbox because one may have committed
 * since the refund looked for it.
 */
export async function saleEventRecordedNoSale(
  em: CoreDeps['em'],
  refundRow: Pick<IWebhookEvent, 'provider' | 'program'>,
  named: string,
): Promise<boolean> {
  // A refund naming a linked alias (a Stripe PaymentIntent) refunds the sale the link names.
  const transactionId = (await findLinkedTransactionId(em, refundRow.program, named)) ?? named;
  const saleEvent = await typedSql(em)
    .selectFrom('webhook_event')
    .select('id')
    .where('provider', '=', refundRow.provider)
    .where('program_id', '=', refundRow.program)
    .where('status', 'in', ['processed', 'ignored'])
    .where(sql`normalised -> 'jobs'`, '@>', sql`${JSON.stringify([{ kind: 'sale', transactionId }])}::jsonb`)
    .limit(1)
    .executeTakeFirst();
  if (!saleEvent) return false;
  const where = { program: refundRow.program, transactionId };
  return (await em.count(Sale, where)) === 0 && (await em.count(TestEvent, where)) === 0;
}
