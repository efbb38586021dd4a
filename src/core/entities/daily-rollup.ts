import { defineEntity, p, type InferEntity, type TriggerDef } from '@mikro-orm/core';

/**
 * A program's activity of one UTC day, per partner (0: sales of no partner; `ALL_PARTNERS`: the
 * program's total) and currency ('' on the row that holds the day's click and lead counts), as
 * `getActivitySeries` reports it: written by the rollup sweeper from the raw rows once the day is
 * over (rollups.ts), rewritten when a later change touches that day (`RollupDirty`). Plain
 * columns, no foreign keys: rows are recomputed, never edited. Read by (program, partner, days).
 */
export const DailyRollup = defineEntity({
  name: 'DailyRollup',
  indexes: [{ properties: ['programId', 'partnerId', 'day'] }],
  properties: {
    programId: p.integer().primary(),
    day: p.string().columnType('date').primary(),
    partnerId: p.integer().primary(),
    currency: p.string().length(3).primary(),
    clicks: p.bigint('number').default(0),
    leads: p.bigint('number').default(0),
    sales: p.bigint('number').default(0),
    revenueCents: p.bigint('number').default(0),
    refundedCents: p.bigint('number').default(0),
    commissionCents: p.bigint('number').default(0),
  },
});
export type IDailyRollup = InferEntity<typeof DailyRollup>;

/** `DailyRollup.partnerId` of a program's total rows (the dashboard overview reads only these). */
export const ALL_PARTNERS = -1;

/**
 * A rolled day of a program whose raw rows changed after it was rolled (a refund of an old sale, a
 * lead rebound to another partner): marked by database triggers on `click`, `customer`, `sale` and
 * `commission`, so no write path can forget it; the sweeper recomputes the day and removes the mark,
 * and reads take such a day from the raw rows meanwhile.
 */
export const RollupDirty = defineEntity({
  name: 'RollupDirty',
  properties: {
    programId: p.integer().primary(),
    day: p.string().columnType('date').primary(),
  },
});
export type IRollupDirty = InferEntity<typeof RollupDirty>;

/**
 * Clicks deleted by click retention (click-retention.ts), per program, UTC day and partner: the
 * rollups and the raw reads add them back, so a day recomputed after its clicks were deleted
 * still counts them.
 */
export const ClickPruned = defineEntity({
  name: 'ClickPruned',
  properties: {
    programId: p.integer().primary(),
    day: p.string().columnType('date').primary(),
    partnerId: p.integer().primary(),
    clicks: p.bigint('number').default(0),
  },
});
export type IClickPruned = InferEntity<typeof ClickPruned>;

/** One row: every UTC day before `rolledThrough` is in `DailyRollup` (null: nothing rolled yet). */
export const RollupState = defineEntity({
  name: 'RollupState',
  properties: {
    id: p.integer().primary().autoincrement(false),
    rolledThrough: p.string().columnType('date').nullable(),
  },
});
export type IRollupState = InferEntity<typeof RollupState>;

/**
 * The dirty-marking triggers of a table the rollups read (created by the daily_rollups migration,
 * their functions replaced by static_rollup_triggers; declared here so the schema diff knows them):
 * after each insert, update and delete statement, `rollup_mark_dirty_<table>_<op>()` over the
 * statement's transition tables.
 */
export function rollupTriggers(table: string): TriggerDef[] {
  const tables = {
    insert: 'referencing new table as new_rows',
    update: 'referencing old table as old_rows new table as new_rows',
    delete: 'referencing old table as old_rows',
  } as const;
  return (['insert', 'update', 'delete'] as const).map((op) => ({
    name: `${table}_rollup_${op}`,
    timing: 'after',
    events: [op],
    forEach: 'statement',
    expression: `create trigger "${table}_rollup_${op}" after ${op} on "${table}" ${tables[op]} for each statement execute function rollup_mark_dirty_${table}_${op}();`,
  }));
}
