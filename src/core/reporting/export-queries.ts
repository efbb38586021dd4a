import { sql, type SelectQueryBuilder } from 'kysely';
import type { EntityManager } from '@mikro-orm/sql';
import { exactText, isoText, typedSql } from '../db/sql.ts';

/** One page of an export: a program's rows after id `after`, in [from, to), of one partner or all. */
export type PageQuery = {
  programId: number;
  partnerId: number | null;
  from: Date | null;
  to: Date | null;
  after: number;
  limit: number;
};

export type ExportRow = Record<string, string | number | boolean | null>;

/**
 * The program, the partner (by the `partner` column), the window (on `time`), the keyset and the
 * page size, on a query whose table is `t`.
 */
function paged<D, T extends keyof D, O>(q: SelectQueryBuilder<D, T, O>, p: PageQuery, time: string, partner: string) {
  const id = sql.ref('t.id');
  return q
    .where(sql.ref('t.program_id'), '=', p.programId)
    .$if(p.partnerId !== null, (x) => x.where(sql.ref(partner), '=', p.partnerId))
    .where(id, '>', p.after)
    .$if(p.from !== null, (x) => x.where(sql.ref(time), '>=', p.from))
    .$if(p.to !== null, (x) => x.where(sql.ref(time), '<', p.to))
    .orderBy(id)
    .limit(p.limit)
    .execute() as Promise<ExportRow[]>;
}

/** Each windowed export's table and the time column its window applies to. */
const WINDOW_COLUMN = {
  commissions: ['commission', 'created_at'],
  sales: ['sale', 'received_at'],
  refunds: ['refund', 'created_at'],
  payouts: ['payout', 'created_at'],
} as const;

/**
 * Where the keyset of a window starting at `from` can start: the id before the program's first row
 * (lowest id) at or after `from`, or null when it has none. Exact whatever the order of ids and
 * times: the minimum is taken over the rows of the window, found by the (program, time) index; the
 * CTE is materialized so that the planner does not walk the primary key from the oldest row instead.
 */
export async function windowStart(
  em: EntityManager,
  kind: keyof typeof WINDOW_COLUMN,
  programId: number,
  from: Date,
): Promise<number | null> {
  const [table, time] = WINDOW_COLUMN[kind];
  const row = await typedSql(em)
    .with(
      (cte) => cte('w').materialized(),
      (db) => db.selectFrom(table).select('id').where('program_id', '=', programId).where(sql.ref(time), '>=', from),
    )
    .selectFrom('w')
    .select((eb) => eb.fn.min('w.id').as('first'))
    .executeTakeFirst();
  return row?.first == null ? null : Number(row.first) - 1;
}

export function salesPage(em: EntityManager, p: PageQuery): Promise<ExportRow[]> {
  const q = typedSql(em)
    .selectFrom('sale as t')
    .leftJoin('partner as p', 'p.id', 't.partner_id')
    .select((eb) => [
      't.id',
      isoText(eb.ref('t.received_at')).as('received_at'),
      't.transaction_id',
      't.partner_id',
      'p.code as partner_code',
      't.currency',
      exactText(eb.ref('t.amount_cents')).as('amount_cents'),
      exactText(eb.ref('t.tax_cents')).as('tax_cents'),
      exactText(eb.ref('t.refunded_cents')).as('refunded_cents'),
      't.provider',
      't.product_id',
      't.attributed_via',
      't.is_recurring',
      't.subscription_id',
    ]);
  return paged(q, p, 't.received_at', 't.partner_id');
}

export function commissionsPage(em: EntityManager, p: PageQuery): Promise<ExportRow[]> {
  const q = typedSql(em)
    .selectFrom('commission as t')
    .innerJoin('partner as p', 'p.id', 't.partner_id')
    .leftJoin('sale as s', 's.id', 't.sale_id')
    .select((eb) => [
      't.id',
      isoText(eb.ref('t.created_at')).as('created_at'),
      't.partner_id',
      'p.code as partner_code',
      'p.name as partner_name',
      't.sale_id',
      's.transaction_id',
      't.currency',
      exactText(eb.ref('t.amount_cents')).as('amount_cents'),
      exactText(eb.ref('t.reversed_cents')).as('reversed_cents'),
      exactText(eb(eb.ref('t.amount_cents'), '-', eb.ref('t.reversed_cents'))).as('net_cents'),
      't.status',
      't.rate_bps',
      sql<string | null>`${eb.ref('t.reward')}->>'rule'`.as('reward_rule'),
      't.held_for_review',
      isoText(eb.ref('t.credited_at')).as('credited_at'),
      isoText(eb.ref('t.paid_at')).as('paid_at'),
      't.payout_id',
      't.reason',
      sql<string>`case when ${eb.ref('t.sale_id')} is null then 'lead' else 'sale' end`.as('kind'),
      't.lead_customer_id',
    ]);
  return paged(q, p, 't.created_at', 't.partner_id');
}

export function refundsPage(em: EntityManager, p: PageQuery): Promise<ExportRow[]> {
  const q = typedSql(em)
    .selectFrom('refund as t')
    .innerJoin('sale as s', 's.id', 't.sale_id')
    .leftJoin('partner as p', 'p.id', 's.partner_id')
    .select((eb) => [
      't.id',
      isoText(eb.ref('t.created_at')).as('created_at'),
      't.sale_id',
      's.transaction_id',
      't.commission_id',
      's.partner_id',
      'p.code as partner_code',
      't.refund_id',
      's.currency',
      exactText(eb.ref('t.applied_cents')).as('applied_cents'),
      exactText(eb.ref('t.deduction_cents')).as('deduction_cents'),
      exactText(eb.ref('t.balance_deduction_cents')).as('balance_deduction_cents'),
      't.reason',
      't.source',
    ]);
  return paged(q, p, 't.created_at', 's.partner_id');
}

export function payoutsPage(em: EntityManager, p: PageQuery): Promise<ExportRow[]> {
  const q = typedSql(em)
    .selectFrom('payout as t')
    .innerJoin('partner as p', 'p.id', 't.partner_id')
    .select((eb) => [
      't.id',
      isoText(eb.ref('t.created_at')).as('created_at'),
      't.partner_id',
      'p.code as partner_code',
      'p.name as partner_name',
      't.currency',
      't.status',
      exactText(eb.ref('t.amount_cents')).as('amount_cents'),
      exactText(eb.ref('t.commissions_cents')).as('commissions_cents'),
      exactText(eb.ref('t.netted_cents')).as('netted_cents'),
      isoText(eb.ref('t.paid_at')).as('paid_at'),
    ]);
  return paged(q, p, 't.created_at', 't.partner_id');
}
