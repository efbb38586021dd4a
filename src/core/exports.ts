import { sql } from 'kysely';
import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Program } from './entities/program.ts';
import { exactText, isoText, typedSql } from './sql.ts';

/** What a program can export as CSV (exports are read-only and scoped to the program). */
export const EXPORT_KINDS = ['commissions', 'sales', 'payouts'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The columns of each export, in order. Amounts are integer minor units of the row's currency. */
export const EXPORT_COLUMNS: Record<ExportKind, readonly string[]> = {
  commissions: [
    'id',
    'created_at',
    'partner_id',
    'partner_code',
    'partner_name',
    'sale_id',
    'transaction_id',
    'currency',
    'amount_cents',
    'reversed_cents',
    'net_cents',
    'status',
    'rate_bps',
    'reward_rule',
    'held_for_review',
    'credited_at',
    'paid_at',
    'payout_id',
    'reason',
    'kind',
    'lead_customer_id',
  ],
  sales: [
    'id',
    'received_at',
    'transaction_id',
    'partner_id',
    'partner_code',
    'currency',
    'amount_cents',
    'tax_cents',
    'refunded_cents',
    'provider',
    'product_id',
    'attributed_via',
    'is_recurring',
    'subscription_id',
  ],
  payouts: [
    'id',
    'created_at',
    'partner_id',
    'partner_code',
    'partner_name',
    'currency',
    'status',
    'amount_cents',
    'commissions_cents',
    'netted_cents',
    'paid_at',
  ],
};

export type ExportRow = Record<string, string | number | boolean | null>;

/**
 * A program's rows of one kind received in [from, to), oldest first, one page at a time (keyset on
 * the id): memory stays one page whatever the size of the export.
 * @throws AppError `not_found` (program).
 */
export async function* exportRows(
  deps: CoreDeps,
  programId: number,
  kind: ExportKind,
  window: { from: Date | null; to: Date | null },
  pageSize = 1_000,
): AsyncGenerator<ExportRow[]> {
  if (!(await deps.em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  let after = 0;
  for (;;) {
    const page = await readPage(deps.em, programId, kind, window, after, pageSize);
    if (!page.length) return;
    after = page[page.length - 1]!.id as number;
    yield page;
    if (page.length < pageSize) return;
  }
}

/** One page of `kind` after id `after`, each row under the export's column names. */
async function readPage(
  em: CoreDeps['em'],
  programId: number,
  kind: ExportKind,
  w: { from: Date | null; to: Date | null },
  after: number,
  limit: number,
): Promise<ExportRow[]> {
  const db = typedSql(em);
  const page = <R>(q: { orderBy(c: 't.id'): { limit(n: number): { execute(): Promise<R[]> } } }) =>
    q.orderBy('t.id').limit(limit).execute() as Promise<ExportRow[]>;
  if (kind === 'sales')
    return page(
      db
        .selectFrom('sale as t')
        .leftJoin('partner as p', 'p.id', 't.partner_id')
        .select((eb) => [
          't.id',
          isoText(eb.ref('t.received_at')).as('received_at'),
          't.transaction_id',
          't.partner_id',
          'p.code as partner_code',
          't.currency',
          exactText(eb.ref('t.amount_cents')).as('amount_cents'),
          exactText(eb.ref('t.tax_cents')).as('tax_cents'),
          exactText(eb.ref('t.refunded_cents')).as('refunded_cents'),
          't.provider',
          't.product_id',
          't.attributed_via',
          't.is_recurring',
          't.subscription_id',
        ])
        .where('t.program_id', '=', programId)
        .where('t.id', '>', after)
        .$if(w.from !== null, (q) => q.where('t.received_at', '>=', w.from!))
        .$if(w.to !== null, (q) => q.where('t.received_at', '<', w.to!)),
    );
  if (kind === 'payouts')
    return page(
      db
        .selectFrom('payout as t')
        .innerJoin('partner as p', 'p.id', 't.partner_id')
        .select((eb) => [
          't.id',
          isoText(eb.ref('t.created_at')).as('created_at'),
          't.partner_id',
          'p.code as partner_code',
          'p.name as partner_name',
          't.currency',
          't.status',
          exactText(eb.ref('t.amount_cents')).as('amount_cents'),
          exactText(eb.ref('t.commissions_cents')).as('commissions_cents'),
          exactText(eb.ref('t.netted_cents')).as('netted_cents'),
          isoText(eb.ref('t.paid_at')).as('paid_at'),
        ])
        .where('t.program_id', '=', programId)
        .where('t.id', '>', after)
        .$if(w.from !== null, (q) => q.where('t.created_at', '>=', w.from!))
        .$if(w.to !== null, (q) => q.where('t.created_at', '<', w.to!)),
    );
  return page(
    db
      .selectFrom('commission as t')
      .innerJoin('partner as p', 'p.id', 't.partner_id')
      .leftJoin('sale as s', 's.id', 't.sale_id')
      .select((eb) => [
        't.id',
        isoText(eb.ref('t.created_at')).as('created_at'),
        't.partner_id',
        'p.code as partner_code',
        'p.name as partner_name',
        't.sale_id',
        's.transaction_id',
        't.currency',
        exactText(eb.ref('t.amount_cents')).as('amount_cents'),
        exactText(eb.ref('t.reversed_cents')).as('reversed_cents'),
        exactText(eb(eb.ref('t.amount_cents'), '-', eb.ref('t.reversed_cents'))).as('net_cents'),
        't.status',
        't.rate_bps',
        sql<string | null>`${eb.ref('t.reward')}->>'rule'`.as('reward_rule'),
        't.held_for_review',
        isoText(eb.ref('t.credited_at')).as('credited_at'),
        isoText(eb.ref('t.paid_at')).as('paid_at'),
        't.payout_id',
        't.reason',
        sql<string>`case when ${eb.ref('t.sale_id')} is null then 'lead' else 'sale' end`.as('kind'),
        't.lead_customer_id',
      ])
      .where('t.program_id', '=', programId)
      .where('t.id', '>', after)
      .$if(w.from !== null, (q) => q.where('t.created_at', '>=', w.from!))
      .$if(w.to !== null, (q) => q.where('t.created_at', '<', w.to!)),
  );
}
