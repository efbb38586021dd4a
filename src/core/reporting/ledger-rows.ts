/** The ledger rows the verification reads (verify-ledger-commissions.ts and verify-ledger-postings.ts). */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { exactText, type DB } from '../db/sql.ts';
import type { StoredPosting } from './ledger-check.ts';

const importedCommission = (eb: ExpressionBuilder<DB & { c: DB['commission'] }, 'c'>) =>
  eb
    .selectFrom('import_source_row as i')
    .select('i.id')
    .where('i.kind', '=', 'commission')
    .whereRef('i.row_id', '=', 'c.id');

// Held while its customer's attribution was disputed, then reversed whole when the advertiser
// bound the customer to another partner's click (refunds/resolve-customer-dispute.ts). The resolved
// conflicts are one uncorrelated list per page (hashed), the customer a primary-key lookup.
const lostDispute = (
  eb: ExpressionBuilder<DB & { c: DB['commission'] } & { s: DB['sale'] }, 'c' | 's'>,
  programId: number,
) =>
  eb.and([
    eb(
      's.customer_id',
      'in',
      eb
        .selectFrom('attribution_conflict as ac')
        .select('ac.customer_id')
        .where('ac.program_id', '=', programId)
        .where('ac.resolved_at', 'is not', null),
    ),
    eb.exists(
      eb
        .selectFrom('customer as cu')
        .select('cu.id')
        .whereRef('cu.id', '=', 's.customer_id')
        .whereRef('cu.partner_id', '<>', 'c.partner_id'),
    ),
  ]);

export function commissionPage(db: Kysely<DB>, programId: number, after: number, limit: number) {
  return db
    .selectFrom('commission as c')
    .leftJoin('sale as s', 's.id', 'c.sale_id')
    .select((eb) => [
      'c.id',
      'c.partner_id',
      'c.sale_id',
      'c.lead_customer_id',
      exactText(eb.ref('c.amount_cents')).as('amount'),
      exactText(eb.ref('c.reversed_cents')).as('reversed'),
      'c.currency',
      'c.rate_bps',
      'c.reward',
      'c.status',
      eb('c.credited_at', 'is not', null).as('credited'),
      'c.hold',
      // Voided at the tool it was imported from: reversed whole on import, no refund rows.
      eb('c.status', '=', 'reversed')
        .and(eb.exists(importedCommission(eb)))
        .as('voided_at_import'),
      eb('c.status', '=', 'reversed').and(lostDispute(eb, programId)).as('lost_dispute'),
      exactText(eb.ref('s.amount_cents')).as('sale_amount'),
      exactText(eb.ref('s.refunded_cents')).as('sale_refunded'),
      's.currency as sale_currency',
      's.product_id',
      's.partner_id as sale_partner_id',
    ])
    .where('c.program_id', '=', programId)
    .where('c.id', '>', after)
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

export function refundsOf(db: Kysely<DB>, programId: number, saleIds: number[]) {
  return db
    .selectFrom('refund')
    .select((eb) => [
      'id',
      'sale_id',
      'commission_id',
      exactText(eb.ref('applied_cents')).as('applied'),
      exactText(eb.ref('deduction_cents')).as('deduction'),
      exactText(eb.ref('balance_deduction_cents')).as('balance_deduction'),
    ])
    .where('program_id', '=', programId)
    .where('sale_id', 'in', saleIds)
    .orderBy('id')
    .execute();
}

export function postingsOf(db: Kysely<DB>, column: 'commission_id' | 'payout_id', ids: number[]) {
  return db
    .selectFrom('balance_entry')
    .select((eb) => [
      'id',
      'partner_id',
      'currency',
      'kind',
      exactText(eb.ref('delta_cents')).as('delta_cents'),
      'commission_id',
      'refund_id',
      'payout_id',
    ])
    .where(column, 'in', ids)
    .orderBy('id')
    .execute() as Promise<StoredPosting[]>;
}
