import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { DAY_MS } from '../deps.ts';
import { refundJobSchema, type RefundJob } from '../jobs/refund-job.ts';
import { parseWith } from '../jobs/job.ts';
import { applyRefund, type RefundResult } from './apply-refund.ts';
import { idempotencyKey } from './refund-plan.ts';
import { typedSql } from '../db/sql.ts';

/** A provider refund kept until its sale is recorded (entities/parked-refund.ts). */

/**
 * Rows a sale still applies: every one not applied. `not_recorded` and `unmatched` say why no sale
 * came, but a sale recorded later (a replayed event, a late delivery) still takes the refund: it did
 * happen.
 */
export const AWAITING_SALE = ['parked', 'not_recorded', 'unmatched'] as const;
/** Outbox rows written by refunds applied late: notifications and outbound event deliveries. */
export type Effects = { notificationIds: number[]; deliveryIds: number[] };

export type ParkedResult = { kind: 'parked'; parkedRefundId: number; transactionId: string };

/** The parked row's key: the transaction and the refund's idempotency key (refund-plan.ts). */
function dedupeKey(job: RefundJob): string {
  const key = idempotencyKey(job);
  const which = key === null ? 'rest' : 'refundId' in key ? `id:${key.refundId}` : `cents:${key.requestedCents}`;
  return `${job.transactionId}|${which}`;
}

/**
 * Parks a provider refund whose sale is not recorded, then tries it once more: a sale committed
 * while the refund was being parked finds no parked row, so one of the two sides must look after
 * its own write (the sweeper catches what both miss). A redelivery or replay parks nothing twice;
 * a replay of an unmatched refund parks it again for a new horizon.
 */
export async function parkRefund(
  deps: CoreDeps,
  job: RefundJob,
  from: { webhookEventId: number; provider: string },
): Promise<ParkedResult | RefundResult> {
  const db = typedSql(deps.em);
  const now = deps.clock();
  const parked = await db
    .insertInto('parked_refund')
    .values({
      program_id: job.programId,
      provider: from.provider,
      transaction_id: job.transactionId,
      sale_alias: job.saleAlias,
      dedupe_key: dedupeKey(job),
      job: sql`${JSON.stringify(job)}::jsonb`,
      webhook_event_id: from.webhookEventId,
      status: 'parked',
      parked_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'dedupe_key'])
        .doUpdateSet({ status: 'parked', parked_at: now, resolved_at: null, outcome: null })
        .where('parked_refund.status', '<>', 'applied'),
    )
    .returning('id')
    .executeTakeFirst();
  const id =
    parked?.id ??
    (
      await db
        .selectFrom('parked_refund')
        .select('id')
        .where('program_id', '=', job.programId)
        .where('dedupe_key', '=', dedupeKey(job))
        .executeTakeFirstOrThrow()
    ).id;
  const applied = await applyParkedRefund(deps, id);
  if (applied) return applied;
  deps.log.info(
    { programId: job.programId, parkedRefundId: id, transactionId: job.transactionId },
    'refund parked until its sale is recorded',
  );
  return { kind: 'parked', parkedRefundId: id, transactionId: job.transactionId };
}

/**
 * Applies a parked refund if its sale is recorded now: the row is locked, so two callers (the
 * sale's path, the link's, the sweeper) apply it once; the refund use-case runs inside that
 * transaction, and the row keeps its result. Null while the sale is still missing, or when the row
 * was applied already.
 */
export async function applyParkedRefund(deps: CoreDeps, id: number): Promise<RefundResult | null> {
  return deps.em.transactional(async (em) => {
    const db = typedSql(em);
    const row = await db
      .selectFrom('parked_refund')
      .select(['job', 'status'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row || !(AWAITING_SALE as readonly string[]).includes(row.status)) return null;
    const job = parseWith(refundJobSchema, row.job);
    if (!job.ok) throw new Error(`parked refund ${id} holds an unreadable job: ${job.reason}`);
    const result = await applyRefund({ ...deps, em }, job.value);
    if (result.kind === 'sale_not_recorded') return null; // still parked: nothing was written
    await db
      .updateTable('parked_refund')
      .set({ status: 'applied', resolved_at: deps.clock(), outcome: sql`${JSON.stringify(result)}::jsonb` })
      .where('id', '=', id)
      .execute();
    deps.log.info({ parkedRefundId: id, outcome: result.kind }, 'parked refund applied');
    return result;
  });
}

/**
 * Applies the refunds parked under any of `ids` (a sale's transaction id just recorded, or a
 * provider alias just linked to a sale); returns their notifications and outbound event deliveries,
 * for the caller to deliver. A failure is logged, not thrown: the caller's own write stands, and
 * the sweeper tries again (the deliveries of refunds applied before it wait for the outbox sweeper).
 */
export async function applyParkedRefundsFor(deps: CoreDeps, programId: number, ids: string[]): Promise<Effects> {
  const notificationIds: number[] = [];
  const deliveryIds: number[] = [];
  try {
    const rows = await typedSql(deps.em)
      .selectFrom('parked_refund')
      .select('id')
      .where('program_id', '=', programId)
      .where('status', 'in', AWAITING_SALE)
      .where((eb) => eb.or([eb('transaction_id', 'in', ids), eb('sale_alias', 'in', ids)]))
      .orderBy('id')
      .execute();
    for (const { id } of rows) {
      const result = await applyParkedRefund(deps, id);
      if (result?.kind !== 'applied') continue;
      notificationIds.push(...result.notificationIds);
      deliveryIds.push(...(result.deliveryIds ?? []));
    }
  } catch (err) {
    deps.log.warn(
      { programId, transactionIds: ids, err: (err as Error).message },
      'parked refunds not applied; the sweeper retries',
    );
  }
  return { notificationIds, deliveryIds };
}

/**
 * The sale event of `transactionId` was processed without recording a sale (a payment nobody
 * referred, or a customer not known yet): refunds parked for it, directly or through a link, say so
 * and leave the unmatched list; a sale recorded later (a replay) still applies them.
 */
export async function closeParkedRefunds(deps: CoreDeps, programId: number, transactionId: string): Promise<void> {
  await typedSql(deps.em)
    .updateTable('parked_refund')
    .set({
      status: 'not_recorded',
      resolved_at: deps.clock(),
      outcome: sql`${JSON.stringify({ kind: 'error', code: 'not_found', message: 'The sale event of this transaction was processed without recording a sale' })}::jsonb`,
    })
    .where('program_id', '=', programId)
    .where('status', '=', 'parked')
    .where((eb) =>
      eb.or([
        eb('transaction_id', '=', transactionId),
        eb('sale_alias', '=', transactionId),
        eb(
          'transaction_id',
          'in',
          eb
            .selectFrom('payment_link')
            .select('alias')
            .where('program_id', '=', programId)
            .where('transaction_id', '=', transactionId),
        ),
      ]),
    )
    .execute();
}

/**
 * The sweeper's pass: applies waiting refunds whose sale exists now (what a race between the two
 * sides left, or a sale that arrived while the applying failed), then lists as `unmatched` those
 * parked longer than `horizonDays` (a sale recorded later still applies them). Returns how many
 * rows changed.
 */
export async function sweepParkedRefunds(deps: CoreDeps, horizonDays: number, limit = 100): Promise<number> {
  const db = typedSql(deps.em);
  const matched = await db
    .selectFrom('parked_refund as p')
    .select('p.id')
    .where('p.status', 'in', AWAITING_SALE)
    .where((eb) => {
      const saleNamed = (column: 'p.transaction_id' | 'p.sale_alias') =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('sale as s')
              .select('s.id')
              .whereRef('s.program_id', '=', 'p.program_id')
              .whereRef('s.transaction_id', '=', column),
          ),
          eb.exists(
            eb
              .selectFrom('test_event as t')
              .select('t.id')
              .whereRef('t.program_id', '=', 'p.program_id')
              .whereRef('t.transaction_id', '=', column),
          ),
        ]);
      return eb.or([
        saleNamed('p.transaction_id'),
        saleNamed('p.sale_alias'),
        eb.exists(
          eb
            .selectFrom('payment_link as l')
            .innerJoin('sale as s', (j) =>
              j.onRef('s.program_id', '=', 'l.program_id').onRef('s.transaction_id', '=', 'l.transaction_id'),
            )
            .select('s.id')
            .whereRef('l.program_id', '=', 'p.program_id')
            .whereRef('l.alias', '=', 'p.transaction_id'),
        ),
      ]);
    })
    .orderBy('p.id')
    .limit(limit)
    .execute();
  let changed = 0;
  for (const { id } of matched) if (await applyParkedRefund(deps, id)) changed++;
  const now = deps.clock();
  const expired = await db
    .updateTable('parked_refund')
    .set({
      status: 'unmatched',
      resolved_at: now,
      outcome: sql`${JSON.stringify({ kind: 'error', code: 'sale_not_recorded', message: `No sale arrived within ${horizonDays} days` })}::jsonb`,
    })
    .where('status', '=', 'parked')
    .where('parked_at', '<', new Date(now.getTime() - horizonDays * DAY_MS))
    .returning(['id', 'program_id', 'transaction_id'])
    .execute();
  for (const r of expired)
    deps.log.warn(
      { parkedRefundId: r.id, programId: r.program_id, transactionId: r.transaction_id },
      'parked refund unmatched: its sale never arrived; listed under parked-refunds',
    );
  return changed + expired.length;
}
