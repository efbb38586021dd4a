import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { CURRENCIES } from '../shared/vocabulary.ts';
import { bigCents, cents, epochMs, exactText, typedSql } from '../db/sql.ts';

/** A sale as the rules preview (preview-rules.ts) replays it; times in ms since the epoch. */
export type SaleRow = {
  id: number;
  partnerId: number;
  amountCents: number;
  currency: string;
  productId: string | null;
  at: number;
  firstSaleAt: number | null;
  /** The customer's first payment (as sale-reward.ts decides it); false unless asked for (`firstSale`). */
  firstSale: boolean;
  currentCents: bigint;
};

/**
 * Sales read per page: a millisecond or two of decoding, and few enough objects that a page is
 * garbage before the young generation is collected (2,000-row pages were promoted, and the
 * old-generation collections they caused paused the process for 50-100 ms).
 */
export const PREVIEW_PAGE_SIZE = 500;

/** Where the next page starts: after this sale, by (received_at, id), the time in microseconds since the epoch (exact). */
export type SalesCursor = { us: string; id: number };

/** The time of a cursor, back as a timestamp (integer microseconds: exact, unlike a float of seconds). */
const cursorTime = (c: SalesCursor) => sql<Date>`'epoch'::timestamptz + ${c.us}::bigint * interval '1 microsecond'`;

/**
 * One page of the attributed live sales in [from, to) after the cursor, in the order received,
 * with their commission and (renewals) first sale, and the cursor after the page. `firstSale`:
 * also whether each is its customer's first payment (no earlier attributed sale of its customer or
 * subscription; the ids give the order the sales were recorded in).
 */
export async function loadPreviewSales(
  em: CoreDeps['em'],
  programId: number,
  p: { from: Date; to: Date; after: SalesCursor | null; limit: number; firstSale?: boolean },
): Promise<{ rows: SaleRow[]; last: SalesCursor | null }> {
  const after = p.after;
  const rows = await typedSql(em)
    .selectFrom('sale as s')
    .leftJoin('commission as c', 'c.sale_id', 's.id')
    .select((eb) => [
      's.id',
      's.partner_id',
      exactText(eb.ref('s.amount_cents')).as('amount'),
      's.currency',
      's.product_id',
      sql<string>`(extract(epoch from ${eb.ref('s.received_at')}) * 1000000)::bigint::text`.as('at_us'),
      exactText(eb.fn.coalesce('c.amount_cents', eb.lit(0))).as('current'),
      eb
        .case()
        .when(eb.and([eb('s.is_recurring', '=', true), eb('s.subscription_id', 'is not', null)]))
        .then(
          epochMs(
            eb
              .selectFrom('sale as f')
              .select((f) => f.fn.min('f.received_at').as('first'))
              .whereRef('f.program_id', '=', 's.program_id')
              .whereRef('f.subscription_id', '=', 's.subscription_id')
              .where('f.partner_id', 'is not', null)
              .$asScalar(),
          ),
        )
        .else(null)
        .end()
        .as('first_ms'),
      (p.firstSale
        ? eb.not(
            eb.exists(
              eb
                .selectFrom('sale as e')
                .select('e.id')
                .whereRef('e.program_id', '=', 's.program_id')
                .whereRef('e.id', '<', 's.id')
                .where('e.partner_id', 'is not', null)
                .where((w) =>
                  w.or([
                    w('e.customer_id', '=', w.ref('s.customer_id')),
                    w.and([w('s.is_recurring', '=', true), w('e.subscription_id', '=', w.ref('s.subscription_id'))]),
                  ]),
                ),
            ),
          )
        : eb.lit(false)
      ).as('first_sale'),
    ])
    .where('s.program_id', '=', programId)
    .where('s.partner_id', 'is not', null)
    .where('s.received_at', '>=', p.from)
    .where('s.received_at', '<', p.to)
    .$if(after !== null, (q) =>
      q
        .where('s.received_at', '>=', cursorTime(after!))
        .where((eb) => eb(eb.refTuple('s.received_at', 's.id'), '>', eb.tuple(cursorTime(after!), after!.id))),
    )
    .orderBy('s.received_at')
    .orderBy('s.id')
    .limit(p.limit)
    .execute();
  const end = rows[rows.length - 1];
  return {
    last: end ? { us: end.at_us, id: end.id } : null,
    rows: rows.map((r) => ({
      id: r.id,
      partnerId: r.partner_id!,
      amountCents: cents(r.amount),
      // The same string for every sale of a currency (the tier windows keep one per sale).
      currency: CURRENCIES.find((c) => c === r.currency) ?? r.currency,
      productId: r.product_id,
      // Milliseconds as `epochMs` rounds them.
      at: Math.round(Number(r.at_us) / 1000),
      firstSaleAt: r.first_ms === null ? null : Number(r.first_ms),
      firstSale: r.first_sale === true,
      currentCents: bigCents(r.current),
    })),
  };
}
