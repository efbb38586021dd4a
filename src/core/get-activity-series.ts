import type { CoreDeps } from './deps.ts';
import { DAY_MS } from './deps.ts';

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

type Row = {
  day: string;
  n: string | number;
  currency?: string;
  cents?: string | number;
  refunded?: string | number;
};

export async function getActivitySeries(
  deps: CoreDeps,
  input: { programId: number; partnerId?: number; from: Date; to: Date },
): Promise<ActivitySeries> {
  const em = deps.em;
  const start = Date.UTC(input.from.getUTCFullYear(), input.from.getUTCMonth(), input.from.getUTCDate());
  const count = Math.min(MAX_SERIES_DAYS, Math.max(1, Math.floor((input.to.getTime() - start) / DAY_MS) + 1));
  const days = Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
  const end = new Date(start + count * DAY_MS);
  const index = new Map(days.map((d, i) => [d, i]));
  const partner = input.partnerId === undefined ? '' : ' and partner_id = ?';
  const args = (extra: unknown[] = []) => [
    input.programId,
    new Date(start),
    end,
    ...(input.partnerId === undefined ? [] : [input.partnerId]),
    ...extra,
  ];
  const day = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD')`;
  const range = (col: string) => `program_id = ? and ${col} >= ? and ${col} < ?${partner}`;

  // Raw: one day-bucketing statement shape over four tables (the typed builder would need a copy
  // per table); read-only, and every column it names is checked by the dashboard tests.
  const [clicks, leads, sales, commissions] = await Promise.all([
    em.execute<Row[]>(
      `select ${day('created_at')} as day, count(*) as n from click where ${range('created_at')} group by 1`,
      args(),
    ),
    em.execute<Row[]>(
      `select ${day('created_at')} as day, count(*) as n from customer where ${range('created_at')} and partner_id is not null group by 1`,
      args(),
    ),
    em.execute<Row[]>(
      `select ${day('received_at')} as day, currency, count(*) as n, sum(amount_cents) as cents, sum(refunded_cents) as refunded from sale where ${range('received_at')} group by 1, 2`,
      args(),
    ),
    em.execute<Row[]>(
      `select ${day('created_at')} as day, currency, count(*) as n, sum(amount_cents - reversed_cents) as cents from commission where ${range('created_at')} group by 1, 2`,
      args(),
    ),
  ]);
  const zeros = () => days.map(() => 0);
  const counts = (rows: Row[]) => {
    const out = zeros();
    for (const r of rows) {
      const i = index.get(r.day);
      if (i !== undefined) out[i]! += Number(r.n);
    }
    return out;
  };
  const money = (rows: Row[], column: 'cents' | 'refunded' = 'cents') => {
    const out: Record<string, number[]> = {};
    for (const r of rows) {
      const i = index.get(r.day);
      if (i === undefined || !r.currency) continue;
      (out[r.currency] ??= zeros())[i]! += Number(r[column] ?? 0);
    }
    return out;
  };
  return {
    days,
    clicks: counts(clicks),
    leads: counts(leads),
    sales: counts(sales),
    revenueCents: money(sales),
    refundedCents: money(sales, 'refunded'),
    commissionCents: money(commissions),
  };
}
