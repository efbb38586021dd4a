import { sql, type Insertable } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { compileStatement, type DB } from '../db/sql.ts';
import { AWAITING_SALE } from '../refunds/parked-refunds.ts';
import type { RewardApplied, HoldRecord } from '../entities/program-rules.ts';

/** The sale's columns as inserted (`line_items` serialised). */
export type SaleRow = Omit<Insertable<DB['sale']>, 'line_items'> & { line_items: string | null };
const SALE_COLUMNS = [
  'program_id',
  'transaction_id',
  'amount_cents',
  'tax_cents',
  'paid_cents',
  'currency',
  'sale_type',
  'line_items',
  'is_recurring',
  'subscription_id',
  'subscription_interval',
  'product_id',
  'occurred_at',
  'provider',
  'provider_payment_id',
  'customer_id',
  'partner_id',
  'click_id',
  'attributed_via',
  'partner_code_id',
  'visitor_id',
  'refunded_cents',
  'received_at',
] as const satisfies ReadonlyArray<keyof SaleRow>;

type SaleInsert = SaleRow & {
  fee_cents: number;
  fee_bps: number;
  commission_cents: number;
  commission_bps: number;
  /** The reward applied (JSON text), stored with the commission. */
  reward: string | null;
  held: boolean;
  /** The fraud hold record (JSON text), or null. */
  hold: string | null;
  at: Date;
};

/**
 * The sale, its platform fee and (`withCommission`) its commission in one statement (atomic
 * without a transaction). Plain inserts, not the unit of work: these rows are written once and not
 * touched again here. A reused transaction id fails the unique key: nothing is written.
 */
function saleInsert(withCommission: boolean) {
  return compileStatement<SaleInsert, { sale_id: number; commission_id: number | null; parked: boolean }>((db, p) => {
    const sale = Object.fromEntries(SALE_COLUMNS.map((c) => [c, p[c]])) as SaleRow;
    const withFee = db
      .with('s', (d) =>
        d
          .insertInto('sale')
          .values({ ...sale, line_items: sql`${p.line_items}::jsonb` })
          .returning('id'),
      )
      .with('f', (d) =>
        d.insertInto('platform_fee').values((eb) => ({
          program_id: p.program_id,
          sale_id: eb.selectFrom('s').select('s.id'),
          amount_cents: p.fee_cents,
          currency: p.currency,
          rate_bps: p.fee_bps,
          created_at: p.at,
        })),
      );
    // Whether a provider refund of this sale arrived first and waits for it (parked-refunds.ts).
    const waiting = db
      .selectFrom('parked_refund as pr')
      .select('pr.id')
      .where('pr.program_id', '=', p.program_id)
      .where('pr.status', 'in', AWAITING_SALE)
      .where((w) => w.or([w('pr.transaction_id', '=', p.transaction_id), w('pr.sale_alias', '=', p.transaction_id)]));
    const parked = sql<boolean>`exists (${waiting})`.as('parked');
    if (!withCommission)
      return withFee
        .selectFrom('s')
        .select(['s.id as sale_id', sql<number | null>`null::int`.as('commission_id'), parked]);
    return withFee
      .with('c', (d) =>
        d
          .insertInto('commission')
          .values((eb) => ({
            program_id: p.program_id,
            sale_id: eb.selectFrom('s').select('s.id'),
            partner_id: p.partner_id!,
            amount_cents: p.commission_cents,
            reversed_cents: 0,
            currency: p.currency,
            rate_bps: p.commission_bps,
            reward: sql`${p.reward}::jsonb`,
            status: 'pending',
            held_for_review: p.held,
            hold: sql`${p.hold}::jsonb`,
            created_at: p.at,
            updated_at: p.at,
          }))
          .returning('id'),
      )
      .selectFrom(['s', 'c'])
      .select(['s.id as sale_id', 'c.id as commission_id', parked]);
  });
}
const INSERT_SALE = saleInsert(false);
const INSERT_SALE_AND_COMMISSION = saleInsert(true);

export async function insertSaleRows(
  em: CoreDeps['em'],
  r: {
    sale: SaleRow;
    fee: { amountCents: number; rateBps: number };
    commission: {
      amountCents: number;
      rateBps: number;
      reward: RewardApplied;
      held: boolean;
      hold: HoldRecord | null;
    } | null;
    at: Date;
  },
): Promise<{ saleId: number; commissionId: number | null; parked: boolean }> {
  const c = r.commission;
  const [row] = await (c ? INSERT_SALE_AND_COMMISSION : INSERT_SALE).run(em, {
    ...r.sale,
    fee_cents: r.fee.amountCents,
    fee_bps: r.fee.rateBps,
    commission_cents: c?.amountCents ?? 0,
    commission_bps: c?.rateBps ?? 0,
    reward: c ? JSON.stringify(c.reward) : null,
    held: c?.held ?? false,
    hold: c?.hold ? JSON.stringify(c.hold) : null,
    at: r.at,
  });
  return { saleId: row!.sale_id, commissionId: row!.commission_id, parked: Boolean(row!.parked) };
}
