import { type Expression, sql, type RawBuilder } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { DAY_MS } from '../deps.ts';
import { ALL_PARTNERS } from '../entities/daily-rollup.ts';
import { dayStartMs, dayText, dirtyDays, rolledThrough } from './rollups.ts';
import { typedSql } from '../db/sql.ts';
import { createTimeSlice } from '../shared/time-slice.ts';

/**
 * Daily activity of a program (or of one partner in it), UTC days from `from` to `to` inclusive.
 * Counts are per day; money is per currency in minor units (never converted):
 * `revenueCents` is the sale amounts as sent (gross), `refundedCents` what has been refunded of the
 * sales made that day (gross less refunded is net), `commissionCents` what remains of the
 * commissions created that day after refunds.
 */
export type ActivitySeries = {
  days: string[];
  clicks: number[];
  leads: number[];
  sales: number[];
  revenueCents: Record<string, number[]>;
  refundedCents: Record<string, number[]>;
  commissionCents: Record<string, number[]>;
};

export const MAX_SERIES_DAYS = 366;

type SeriesInput = {
  programId: number;
  partnerId?: number;
  from: Date;
  to: Date;
  /** Every day from the raw rows, the rollups unread (the consistency check, `rollups:check`). */
  rawOnly?: boolean;
};

/**
 * The series, from the daily rollups for rolled days and the raw rows for the rest (rollups.ts),
 * read in one snapshot so a day being rolled meanwhile is counted once.
 */
export function getActivitySeries(deps: CoreDeps, input: SeriesInput): Promise<ActivitySeries> {
  return readSeries(deps, input, MAX_SERIES_DAYS);
}

/** All-time counts of a program's clicks, leads and sales since `since` (the CLI status), by the same rules. */
export async function activityTotals(
  deps: CoreDeps,
  programId: number,
  since: Date,
): Promise<{ clicks: number; leads: number; sales: number }> {
  const s = await readSeries(deps, { programId, from: since, to: deps.clock() }, Number.MAX_SAFE_INTEGER);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  return { clicks: sum(s.clicks), leads: sum(s.leads), sales: sum(s.sales) };
}

async function readSeries(deps: CoreDeps, input: SeriesInput, maxDays: number): Promise<ActivitySeries> {
  const { days, acc, end } = emptySeries(input, maxDays);
  const first = days[0]!;
  const endDay = dayText(end.getTime());
  return deps.em.transactional(
    async (em) => {
      const db = typedSql(em);
      const through = input.rawOnly ? null : await rolledThrough(db);
      const rolledEnd = through === null || through < first ? first : through < endDay ? through : endDay;
      const dirty = rolledEnd > first ? await dirtyDays(db, input.programId, first, rolledEnd) : [];
      if (rolledEnd > first) {
        const rows = await db
          .selectFrom('daily_rollup')
          .select([
            sql<string>`day::text`.as('day'),
            'currency',
            sql<string>`sum(clicks)::text`.as('clicks'),
            sql<string>`sum(leads)::text`.as('leads'),
            sql<string>`sum(sales)::text`.as('sales'),
            sql<string>`sum(revenue_cents)::text`.as('revenue'),
            sql<string>`sum(refunded_cents)::text`.as('refunded'),
            sql<string>`sum(commission_cents)::text`.as('commission'),
          ])
          .where('program_id', '=', input.programId)
          .where('partner_id', '=', input.partnerId ?? ALL_PARTNERS)
          .where(sql<boolean>`day >= ${first}::date and day < ${rolledEnd}::date`)
          .$if(dirty.length > 0, (q) => q.where(sql<boolean>`day::text <> all(${dirty})`))
          .groupBy(['day', 'currency'])
          .execute();
        for (const r of rows) {
          acc.count('clicks', r.day, r.clicks);
          acc.count('leads', r.day, r.leads);
          acc.count('sales', r.day, r.sales);
          acc.money('revenueCents', r.day, r.currency, r.revenue);
          acc.money('refundedCents', r.day, r.currency, r.refunded);
          acc.money('commissionCents', r.day, r.currency, r.commission);
        }
      }
      // The raw rows of what is not rolled (or changed since): today, the grace period, dirty days.
      const ranges: Array<[Date, Date]> = dirty.map((d) => [new Date(dayStartMs(d)), new Date(dayStartMs(d) + DAY_MS)]);
      if (rolledEnd < endDay) ranges.push([new Date(dayStartMs(rolledEnd)), end]);
      if (ranges.length) await addRawRows(db, input, ranges, acc);
      return acc.series;
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

function emptySeries(input: SeriesInput, maxDays: number) {
  const start = Date.UTC(input.from.getUTCFullYear(), input.from.getUTCMonth(), input.from.getUTCDate());
  const count = Math.min(maxDays, Math.max(1, Math.floor((input.to.getTime() - start) / DAY_MS) + 1));
  const days = Array.from({ length: count }, (_, i) => dayText(start + i * DAY_MS));
  const index = new Map(days.map((d, i) => [d, i]));
  const zeros = () => days.map(() => 0);
  const series: ActivitySeries = {
    days,
    clicks: zeros(),
    leads: zeros(),
    sales: zeros(),
    revenueCents: {},
    refundedCents: {},
    commissionCents: {},
  };
  const acc = {
    series,
    count(key: 'clicks' | 'leads' | 'sales', day: string, n: string | number | bigint) {
      const i = index.get(day);
      if (i !== undefined) series[key][i]! += Number(n);
    },
    money(
      key: 'revenueCents' | 'refundedCents' | 'commissionCents',
      day: string,
      currency: string,
      v: string | number | bigint | null,
    ) {
      const i = index.get(day);
      if (i === undefined || !currency || v === null) return;
      (series[key][currency] ??= zeros())[i]! += Number(v);
    },
  };
  return { days, acc, end: new Date(start + count * DAY_MS) };
}

type Accumulator = ReturnType<typeof emptySeries>['acc'];

/** The day-bucketed counts and sums of the raw rows within `ranges`. */
async function addRawRows(
  db: ReturnType<typeof typedSql>,
  input: SeriesInput,
  ranges: Array<[Date, Date]>,
  acc: Accumulator,
): Promise<void> {
  const day = (col: string): RawBuilder<string> =>
    sql<string>`to_char(${sql.ref(col)} at time zone 'UTC', 'YYYY-MM-DD')`;
  const within = (col: string): Expression<boolean> =>
    sql<boolean>`(${sql.join(
      ranges.map(([a, b]) => sql`(${sql.ref(col)} >= ${a} and ${sql.ref(col)} < ${b})`),
      sql` or `,
    )})`;
  const partner = input.partnerId;
  const days = sql<boolean>`(${sql.join(
    ranges.map(([a, b]) => sql`(day >= ${dayText(a.getTime())}::date and day < ${dayText(b.getTime())}::date)`),
    sql` or `,
  )})`;
  const [clicks, pruned, leads, sales, commissions] = await Promise.all([
    db
      .selectFrom('click')
      .select((eb) => [day('created_at').as('day'), eb.fn.countAll<string>().as('n')])
      .where('program_id', '=', input.programId)
      .where(within('created_at'))
      .$if(partner !== undefined, (q) => q.where('partner_id', '=', partner!))
      .groupBy(sql`1`)
      .execute(),
    // Clicks deleted by retention (click-retention.ts) of these days.
    db
      .selectFrom('click_pruned')
      .select([sql<string>`day::text`.as('day'), sql<string>`sum(clicks)::text`.as('n')])
      .where('program_id', '=', input.programId)
      .where(days)
      .$if(partner !== undefined, (q) => q.where('partner_id', '=', partner!))
      .groupBy('day')
      .execute(),
    db
      .selectFrom('customer')
      .select((eb) => [day('created_at').as('day'), eb.fn.countAll<string>().as('n')])
      .where('program_id', '=', input.programId)
      .where(within('created_at'))
      .where('partner_id', 'is not', null)
      .$if(partner !== undefined, (q) => q.where('partner_id', '=', partner!))
      .groupBy(sql`1`)
      .execute(),
    db
      .selectFrom('sale')
      .select((eb) => [
        day('received_at').as('day'),
        'currency',
        eb.fn.countAll<string>().as('n'),
        sql<string>`sum(amount_cents)::text`.as('cents'),
        sql<string>`sum(refunded_cents)::text`.as('refunded'),
      ])
      .where('program_id', '=', input.programId)
      .where(within('received_at'))
      .$if(partner !== undefined, (q) => q.where('partner_id', '=', partner!))
      .groupBy([sql`1`, 'currency'])
      .execute(),
    db
      .selectFrom('commission')
      .select([
        day('created_at').as('day'),
        'currency',
        sql<string>`sum(amount_cents - reversed_cents)::text`.as('cents'),
      ])
      .where('program_id', '=', input.programId)
      .where(within('created_at'))
      .$if(partner !== undefined, (q) => q.where('partner_id', '=', partner!))
      .groupBy([sql`1`, 'currency'])
      .execute(),
  ]);
  for (const r of [...clicks, ...pruned]) acc.count('clicks', r.day, r.n);
  for (const r of leads) acc.count('leads', r.day, r.n);
  for (const r of sales) {
    acc.count('sales', r.day, r.n);
    acc.money('revenueCents', r.day, r.currency, r.cents);
    acc.money('refundedCents', r.day, r.currency, r.refunded);
  }
  for (const r of commissions) acc.money('commissionCents', r.day, r.currency, r.cents);
}

/** A day where the series read through the rollups differs from the raw rows'. */
export type RollupMismatch = { day: string; measure: string; rollup: number; raw: number };

/**
 * The consistency check (`GET /programs/:id/stats/check`, `rollups:check`): the series of the range
 * read through the rollups against the same read from the raw rows alone. Empty when they agree,
 * which the dirty-marking triggers keep true; anything else is a bug to report. Read a month at a
 * time (time-slice.ts: resting between months as long as the last one took): a year of raw rows
 * is never one query, and `signal` stops the check between months (its reason is thrown).
 */
export async function checkRollups(
  deps: CoreDeps,
  input: SeriesInput,
  signal?: AbortSignal,
): Promise<RollupMismatch[]> {
  const { days } = emptySeries(input, MAX_SERIES_DAYS);
  const out: RollupMismatch[] = [];
  const slice = createTimeSlice(signal);
  for (let i = 0; i < days.length; i += CHECK_DAYS) {
    if (i > 0) await slice.next();
    const part = {
      ...input,
      from: new Date(dayStartMs(days[i]!)),
      to: new Date(dayStartMs(days[Math.min(i + CHECK_DAYS, days.length) - 1]!)),
    };
    const [rolled, raw] = await Promise.all([
      getActivitySeries(deps, part),
      getActivitySeries(deps, { ...part, rawOnly: true }),
    ]);
    out.push(...compareSeries(rolled, raw));
  }
  return out;
}

/** Days read per step of the check. */
const CHECK_DAYS = 31;

function compareSeries(rolled: ActivitySeries, raw: ActivitySeries): RollupMismatch[] {
  const out: RollupMismatch[] = [];
  const compare = (measure: string, a: number[] = [], b: number[] = []) =>
    rolled.days.forEach((day, i) => {
      if ((a[i] ?? 0) !== (b[i] ?? 0)) out.push({ day, measure, rollup: a[i] ?? 0, raw: b[i] ?? 0 });
    });
  for (const m of ['clicks', 'leads', 'sales'] as const) compare(m, rolled[m], raw[m]);
  for (const m of ['revenueCents', 'refundedCents', 'commissionCents'] as const) {
    for (const currency of new Set([...Object.keys(rolled[m]), ...Object.keys(raw[m])]))
      compare(`${m}.${currency}`, rolled[m][currency], raw[m][currency]);
  }
  return out;
}
