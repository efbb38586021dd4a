import { type Kysely, type RawBuilder, sql } from 'kysely';
import { DAY_MS, type CoreDeps } from '../deps.ts';
import { ALL_PARTNERS } from '../entities/daily-rollup.ts';
import { typedSql, type DB } from '../db/sql.ts';

/**
 * Daily rollups: each UTC day's clicks, leads, sales, revenue, refunds and commissions per program,
 * partner and currency, as `getActivitySeries` reports them, so a year's overview reads 365 rows per
 * partner instead of every raw row of the year.
 *
 * - A day is rolled once it ended `ROLLUP_GRACE_MS` ago (writes of a process whose clock is a little
 *   behind still land before), by the sweeper, oldest first, in one transaction that also moves
 *   `rollup_state.rolled_through` past it.
 * - Triggers on `click`, `customer`, `sale` and `commission` mark (program, day) dirty whenever a
 *   raw row of a rolled day is inserted, deleted or changed in a column the rollup reads (a refund of
 *   a sale made months ago, a lead rebound): the sweeper recomputes that day from the raw rows.
 * - Reads use rollups for rolled, clean days and the raw rows for the rest (today, the grace
 *   period, dirty days), in one snapshot: the figures are exact at any time, never lagging.
 */
export const ROLLUP_GRACE_MS = 10 * 60_000;

export const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayStartMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** The first day not rolled yet (`null`: nothing rolled). */
export async function rolledThrough(db: Kysely<DB>): Promise<string | null> {
  const row = await db
    .selectFrom('rollup_state')
    .select(sql<string | null>`rolled_through::text`.as('through'))
    .where('id', '=', 1)
    .executeTakeFirst();
  return row?.through ?? null;
}

/** Rolled days of `programId` whose raw rows changed since, between two days (inclusive, exclusive). */
export async function dirtyDays(db: Kysely<DB>, programId: number, from: string, to: string): Promise<string[]> {
  const rows = await db
    .selectFrom('rollup_dirty')
    .select(sql<string>`day::text`.as('day'))
    .where('program_id', '=', programId)
    .where(sql<boolean>`day >= ${from}::date and day < ${to}::date`)
    .execute();
  return rows.map((r) => r.day);
}

const MEASURES = ['clicks', 'leads', 'sales', 'revenue_cents', 'refunded_cents', 'commission_cents'] as const;
const count = sql<string>`count(*)`;
/** The six measure columns of a rollup row: those given, 0 for the rest (one shape for the union). */
const measures = (m: Partial<Record<(typeof MEASURES)[number], RawBuilder<string>>>) =>
  MEASURES.map((k) => (m[k] ?? sql<string>`0`).as(k));

/**
 * Writes one program's rollup rows of one day from the raw rows: one per partner and currency,
 * and the program's totals (`ALL_PARTNERS`) per currency.
 */
async function writeDay(db: Kysely<DB>, day: string, programId: number): Promise<void> {
  const from = new Date(dayStartMs(day));
  const to = new Date(dayStartMs(day) + DAY_MS);
  const on = <C extends string>(col: C) => ({ from: [col, '>=', from] as const, to: [col, '<', to] as const });
  const c = on('created_at');
  const clicks = db
    .selectFrom('click')
    .select([sql<number>`partner_id`.as('partner_id'), sql<string>`''`.as('currency'), ...measures({ clicks: count })])
    .where(...c.from)
    .where(...c.to)
    .where('program_id', '=', programId)
    .groupBy('partner_id');
  // Clicks deleted by retention (click-retention.ts) still count.
  const pruned = db
    .selectFrom('click_pruned')
    .select([
      sql<number>`partner_id`.as('partner_id'),
      sql<string>`''`.as('currency'),
      ...measures({ clicks: sql<string>`clicks` }),
    ])
    .where(sql<boolean>`day = ${day}::date`)
    .where('program_id', '=', programId);
  const leads = db
    .selectFrom('customer')
    .select([sql<number>`partner_id`.as('partner_id'), sql<string>`''`.as('currency'), ...measures({ leads: count })])
    .where(...c.from)
    .where(...c.to)
    .where('partner_id', 'is not', null)
    .where('program_id', '=', programId)
    .groupBy('partner_id');
  const r = on('received_at');
  const sales = db
    .selectFrom('sale')
    .select([
      sql<number>`coalesce(partner_id, 0)`.as('partner_id'),
      sql<string>`currency`.as('currency'),
      ...measures({
        sales: count,
        revenue_cents: sql<string>`sum(amount_cents)`,
        refunded_cents: sql<string>`sum(refunded_cents)`,
      }),
    ])
    .where(...r.from)
    .where(...r.to)
    .where('program_id', '=', programId)
    .groupBy(['partner_id', 'currency']);
  const commissions = db
    .selectFrom('commission')
    .select([
      sql<number>`partner_id`.as('partner_id'),
      sql<string>`currency`.as('currency'),
      ...measures({ commission_cents: sql<string>`sum(amount_cents - reversed_cents)` }),
    ])
    .where(...c.from)
    .where(...c.to)
    .where('program_id', '=', programId)
    .groupBy(['partner_id', 'currency']);
  const all = clicks.unionAll(pruned).unionAll(leads).unionAll(sales).unionAll(commissions).as('x');
  await db
    .deleteFrom('daily_rollup')
    .where(sql<boolean>`day = ${day}::date`)
    .where('program_id', '=', programId)
    .execute();
  await db
    .insertInto('daily_rollup')
    .columns([
      'program_id',
      'day',
      'partner_id',
      'currency',
      'clicks',
      'leads',
      'sales',
      'revenue_cents',
      'refunded_cents',
      'commission_cents',
    ])
    .expression(
      db
        .selectFrom(all)
        .select([
          sql<number>`${programId}::int`.as('program_id'),
          sql<string>`${day}::date`.as('day'),
          sql<number>`coalesce(x.partner_id, ${ALL_PARTNERS})`.as('partner_id'),
          'x.currency',
          sql<string>`sum(x.clicks)`.as('clicks'),
          sql<string>`sum(x.leads)`.as('leads'),
          sql<string>`sum(x.sales)`.as('sales'),
          sql<string>`sum(x.revenue_cents)`.as('revenue_cents'),
          sql<string>`sum(x.refunded_cents)`.as('refunded_cents'),
          sql<string>`sum(x.commission_cents)`.as('commission_cents'),
        ])
        // Per partner, and the program's totals (partner null in that grouping set).
        .groupBy(sql`grouping sets ((x.partner_id, x.currency), (x.currency))`),
    )
    .execute();
}

/** The first day any raw row was written (the rollups start there), or null on an empty database. */
async function firstDay(db: Kysely<DB>): Promise<string | null> {
  const row = await db
    .selectNoFrom([
      sql<string | null>`least(
        (select min(created_at) from click), (select min(created_at) from customer),
        (select min(received_at) from sale), (select min(created_at) from commission)
      )::date::text`.as('day'),
    ])
    .executeTakeFirst();
  return row?.day ?? null;
}

export type RollupSweep = { rolled: number; recomputed: number };

/**
 * One sweep: rolls the days that ended `ROLLUP_GRACE_MS` ago (at most `maxDays`, oldest first;
 * a year's backlog after an upgrade is rolled a month per sweep), then recomputes up to
 * `maxDirty` dirty days. Each day is its own transaction.
 */
export async function sweepRollups(deps: CoreDeps, maxDays = 31, maxDirty = 200): Promise<RollupSweep> {
  const out: RollupSweep = { rolled: 0, recomputed: 0 };
  const rollable = dayText(deps.clock().getTime() - ROLLUP_GRACE_MS - DAY_MS);
  while (out.rolled < maxDays) {
    const done = await deps.em.transactional(async (em) => {
      const db = typedSql(em);
      // Locks the state row: two sweepers never roll the same day.
      const state = await db
        .selectFrom('rollup_state')
        .select(sql<string | null>`rolled_through::text`.as('through'))
        .where('id', '=', 1)
        .forUpdate()
        .executeTakeFirst();
      const day = state?.through ?? (await firstDay(db)) ?? dayText(deps.clock().getTime());
      if (day > rollable) {
        if (!state?.through) await setThrough(db, day);
        return true;
      }
      const programs = await db.selectFrom('program').select('id').execute();
      for (const p of programs) await writeDay(db, day, p.id);
      await setThrough(db, dayText(dayStartMs(day) + DAY_MS));
      return false;
    });
    if (done) break;
    out.rolled++;
  }
  const dirty = await typedSql(deps.em)
    .selectFrom('rollup_dirty')
    .select(['program_id', sql<string>`day::text`.as('day')])
    .orderBy('day')
    .limit(maxDirty)
    .execute();
  for (const d of dirty) {
    await deps.em.transactional(async (em) => {
      const db = typedSql(em);
      // Taking the mark first: a change committed after this transaction marks the day again.
      const taken = await db
        .deleteFrom('rollup_dirty')
        .where('program_id', '=', d.program_id)
        .where(sql<boolean>`day = ${d.day}::date`)
        .returning('program_id')
        .execute();
      if (taken.length) await writeDay(db, d.day, d.program_id);
    });
    out.recomputed++;
  }
  return out;
}

async function setThrough(db: Kysely<DB>, day: string): Promise<void> {
  await db
    .updateTable('rollup_state')
    .set({ rolled_through: sql<string>`${day}::date` })
    .where('id', '=', 1)
    .execute();
}
