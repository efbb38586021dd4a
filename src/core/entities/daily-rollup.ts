import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A program's activity of one UTC day, per partner (0: none) and currency ('' on the row that holds
 * the day's click and lead counts), as `getActivitySeries` reports it: written by the rollup sweeper
 * from the raw rows once the day is over (rollups.ts), rewritten when a later change touches that
 * day (`RollupDirty`). Plain columns, no foreign keys: rows are recomputed, never edited.
 */
export const DailyRollup = defineEntity({
  name: 'DailyRollup',
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

/** One row: every UTC day before `rolledThrough` is in `DailyRollup` (null: nothing rolled yet). */
export const RollupState = defineEntity({
  name: 'RollupState',
  properties: {
    id: p.integer().primary().autoincrement(false),
    rolledThrough: p.string().columnType('date').nullable(),
  },
});
export type IRollupState = InferEntity<typeof RollupState>;
