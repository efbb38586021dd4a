import type { EntityManager } from '@mikro-orm/sql';
import { exactText, isoText, typedSql } from '../db/sql.ts';

/**
 * A partner's ledger lines after id `after`, oldest first, with what caused each (the commission's
 * sale and its transaction, or the lead): the statement export reads them, and so does signing a
 * checkpoint (statement-checkpoints.ts).
 */
export function statementLinesPage(em: EntityManager, p: { partnerId: number; after: number; limit: number }) {
  return typedSql(em)
    .selectFrom('balance_entry as t')
    .leftJoin('commission as c', 'c.id', 't.commission_id')
    .leftJoin('sale as s', 's.id', 'c.sale_id')
    .select((eb) => [
      't.id',
      isoText(eb.ref('t.created_at')).as('created_at'),
      't.currency',
      't.kind',
      exactText(eb.ref('t.delta_cents')).as('delta_cents'),
      't.commission_id',
      'c.sale_id',
      's.transaction_id',
      'c.lead_customer_id',
      't.refund_id',
      't.payout_id',
    ])
    .where('t.partner_id', '=', p.partnerId)
    .where('t.id', '>', p.after)
    .orderBy('t.id')
    .limit(p.limit)
    .execute();
}

export type StatementLine = Awaited<ReturnType<typeof statementLinesPage>>[number];
