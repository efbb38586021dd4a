import { sql, type Expression } from 'kysely';
import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Program } from './entities/program.ts';
import { exactText, typedSql } from './sql.ts';

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
/** A timestamp as ISO 8601 UTC text, made by PostgreSQL (the same text whichever driver reads it). */
const isoText = (e: Expression<Date | null>) =>
  sql<string | null>`to_char(${e} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

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

async function readPage(
  em: CoreDeps['em'],
  programId: number,
  kind: ExportKind,
  w: { from: Date | null; to: Date | null },
  after: number,
  limit: number,
): Promise<ExportRow[]> {
  const db = typedSql(em);
  if (kind === 'sales') {
    let q = db
      .selectFrom('sale as s')
      .leftJoin('partner as p', 'p.id', 's.partner_id')
      .select((eb) => [
        's.id',
        isoText(eb.ref('s.received_at')).as('received_at'),
        's.transaction_id',
        's.partner_id',
        'p.code',
        's.currency',
        exactText(eb.ref('s.amount_cents')).as('amount'),
        exactText(eb.ref('s.tax_cents')).as('tax'),
        exactText(eb.ref('s.refunded_cents')).as('refunded'),
        's.provider',
        's.product_id',
        's.attributed_via',
        's.is_recurring',
        's.subscription_id',
      ])
      .where('s.program_id', '=', programId)
      .where('s.id', '>', after);
    if (w.from) q = q.where('s.received_at', '>=', w.from);
    if (w.to) q = q.where('s.received_at', '<', w.to);
    const rows = await q.orderBy('s.id').limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      received_at: r.received_at,
      transaction_id: r.transaction_id,
      partner_id: r.partner_id,
      partner_code: r.code,
      currency: r.currency,
      amount_cents: r.amount,
      tax_cents: r.tax === null || r.tax === undefined ? null : r.tax,
      refunded_cents: r.refunded,
      provider: r.provider,
      product_id: r.product_id,
      attributed_via: r.attributed_via,
      is_recurring: r.is_recurring,
      subscription_id: r.subscription_id,
    }));
  }
  if (kind === 'payouts') {
    let q = db
      .selectFrom('payout as o')
      .innerJoin('partner as p', 'p.id', 'o.partner_id')
      .select((eb) => [
        'o.id',
        isoText(eb.ref('o.created_at')).as('created_at'),
        'o.partner_id',
        'p.code',
        'p.name',
        'o.currency',
        'o.status',
        exactText(eb.ref('o.amount_cents')).as('amount'),
        exactText(eb.ref('o.commissions_cents')).as('commissions'),
        exactText(eb.ref('o.netted_cents')).as('netted'),
        isoText(eb.ref('o.paid_at')).as('paid_at'),
      ])
      .where('o.program_id', '=', programId)
      .where('o.id', '>', after);
    if (w.from) q = q.where('o.created_at', '>=', w.from);
    if (w.to) q = q.where('o.created_at', '<', w.to);
    const rows = await q.orderBy('o.id').limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      created_at: r.created_at,
      partner_id: r.partner_id,
      partner_code: r.code,
      partner_name: r.name,
      currency: r.currency,
      status: r.status,
      amount_cents: r.amount,
      commissions_cents: r.commissions,
      netted_cents: r.netted,
      paid_at: r.paid_at,
    }));
  }
  let q = db
    .selectFrom('commission as c')
    .innerJoin('partner as p', 'p.id', 'c.partner_id')
    .innerJoin('sale as s', 's.id', 'c.sale_id')
    .select((eb) => [
      'c.id',
      isoText(eb.ref('c.created_at')).as('created_at'),
      'c.partner_id',
      'p.code',
      'p.name',
      'c.sale_id',
      's.transaction_id',
      'c.currency',
      exactText(eb.ref('c.amount_cents')).as('amount'),
      exactText(eb.ref('c.reversed_cents')).as('reversed'),
      exactText(eb(eb.ref('c.amount_cents'), '-', eb.ref('c.reversed_cents'))).as('net'),
      'c.status',
      'c.rate_bps',
      'c.reward',
      'c.held_for_review',
      isoText(eb.ref('c.credited_at')).as('credited_at'),
      isoText(eb.ref('c.paid_at')).as('paid_at'),
      'c.payout_id',
      'c.reason',
    ])
    .where('c.program_id', '=', programId)
    .where('c.id', '>', after);
  if (w.from) q = q.where('c.created_at', '>=', w.from);
  if (w.to) q = q.where('c.created_at', '<', w.to);
  const rows = await q.orderBy('c.id').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    created_at: r.created_at,
    partner_id: r.partner_id,
    partner_code: r.code,
    partner_name: r.name,
    sale_id: r.sale_id,
    transaction_id: r.transaction_id,
    currency: r.currency,
    amount_cents: r.amount,
    reversed_cents: r.reversed,
    net_cents: r.net,
    status: r.status,
    rate_bps: r.rate_bps,
    reward_rule: (r.reward as { rule?: string } | null)?.rule ?? null,
    held_for_review: r.held_for_review,
    credited_at: r.credited_at,
    paid_at: r.paid_at,
    payout_id: r.payout_id,
    reason: r.reason,
  }));
}
