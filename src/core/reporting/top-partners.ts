import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { exactAmount } from '../shared/money.ts';
import { exactText, typedSql } from '../db/sql.ts';

/** What partners are ranked by: net revenue (sales less refunds) or what remains of their commissions. */
export type PartnerRanking = 'revenue' | 'commission';

/**
 * One partner's results in one currency over a window, minor units (never converted): `revenueCents`
 * the sale amounts as sent, `refundedCents` what was refunded of those sales, `commissionCents` what
 * remains of the commissions on them after refunds.
 */
export type PartnerResult = {
  partnerId: number;
  code: string;
  name: string;
  currency: string;
  sales: number;
  revenueCents: number;
  refundedCents: number;
  commissionCents: number;
};

/**
 * The program's best partners by the sales received in [from, to), one line per partner and
 * currency, best first. Read from the raw rows in one statement (the program's `(program,
 * received_at)` index bounds it); sums are exact.
 */
export async function rankPartners(
  deps: CoreDeps,
  programId: number,
  input: { from: Date; to: Date; by: PartnerRanking; limit: number; currency?: string },
): Promise<PartnerResult[]> {
  const rows = await typedSql(deps.em)
    .selectFrom('sale as s')
    .innerJoin('partner as p', 'p.id', 's.partner_id')
    .leftJoin('commission as c', 'c.sale_id', 's.id')
    .select((eb) => [
      's.partner_id',
      'p.code',
      'p.name',
      's.currency',
      eb.fn.countAll<string>().as('sales'),
      exactText(eb.fn.sum('s.amount_cents')).as('revenue'),
      exactText(eb.fn.sum('s.refunded_cents')).as('refunded'),
      exactText(eb.fn.coalesce(eb.fn.sum(eb('c.amount_cents', '-', eb.ref('c.reversed_cents'))), eb.lit(0))).as(
        'commission',
      ),
    ])
    .where('s.program_id', '=', programId)
    .where('s.received_at', '>=', input.from)
    .where('s.received_at', '<', input.to)
    .$if(input.currency !== undefined, (q) => q.where('s.currency', '=', input.currency!))
    .groupBy(['s.partner_id', 'p.code', 'p.name', 's.currency'])
    .orderBy(
      input.by === 'revenue'
        ? sql`sum(s.amount_cents - s.refunded_cents)`
        : sql`coalesce(sum(c.amount_cents - c.reversed_cents), 0)`,
      'desc',
    )
    .orderBy('s.partner_id')
    .limit(input.limit)
    .execute();
  return rows.map((r) => ({
    partnerId: r.partner_id!,
    code: r.code,
    name: r.name,
    currency: r.currency,
    sales: Number(r.sales),
    revenueCents: exactAmount(r.revenue),
    refundedCents: exactAmount(r.refunded),
    commissionCents: exactAmount(r.commission),
  }));
}
