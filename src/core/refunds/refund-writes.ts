import type { EntityManager } from '@mikro-orm/sql';
import { sql } from 'kysely';
import type { NotificationKind } from '../entities/notification.ts';
import type { RefundEffect } from './refund-plan.ts';
import { bigCents, compileStatement, exactText } from '../db/sql.ts';
import { ledgerWrites, postingOf, type LedgerEntry, type Posting } from '../ledger/ledger.ts';

export type RefundRow = {
  program_id: number;
  sale_id: number;
  commission_id: number | null;
  refund_id: string | null;
  requested_cents: number | null;
  applied_cents: number;
  deduction_cents: number;
  balance_deduction_cents: number;
  reason: string | null;
  source: string;
  created_at: Date;
};

export type NotificationRow = {
  program_id: number;
  kind: NotificationKind;
  partner_id: number;
  commission_id: number;
  payload: Record<string, unknown>;
  created_at: Date;
};

export type RefundWrite = {
  refund: RefundRow;
  commission?: {
    id: number;
    deduction: number;
    status: RefundEffect['status'];
    reason: string | null;
    updatedAt: Date;
    notifications: NotificationRow[];
    /** The balance's share of the deduction (a credited commission), posted in the same statement. */
    ledger: LedgerEntry | null;
  };
};

type WriteParams = RefundRow & {
  c_deduction: number;
  c_status: RefundEffect['status'];
  c_reason: string | null;
  c_updated_at: Date;
  n_partner_id: number;
  n1_kind: NotificationKind;
  n1_payload: string;
  n2_kind: NotificationKind;
  n2_payload: string;
} & { [K in keyof Posting as `l_${K}`]: Posting[K] };

const REFUND_COLUMNS = [
  'program_id',
  'sale_id',
  'commission_id',
  'refund_id',
  'requested_cents',
  'applied_cents',
  'deduction_cents',
  'balance_deduction_cents',
  'reason',
  'source',
  'created_at',
] as const satisfies ReadonlyArray<keyof RefundRow>;

/**
 * The writes of an applied refund in one statement: the sale's refunded total, the refund row and,
 * with a commission, its reversal, its one or two outbox rows and (`ledger`) the ledger's posting
 * (`ledgerWrites`, naming the refund row). Every shape compiled once.
 */
function writeStatement(shape: { commission: boolean; notes: 1 | 2; ledger: boolean }) {
  return compileStatement((db, p: WriteParams) => {
    const refund = Object.fromEntries(REFUND_COLUMNS.map((c) => [c, p[c]])) as RefundRow;
    const base = db
      .with('s', (d) =>
        d
          .updateTable('sale')
          .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', p.applied_cents) }))
          .where('id', '=', p.sale_id)
          .returning('id'),
      )
      .with('r', (d) => d.insertInto('refund').values(refund).returning('id'));
    if (!shape.commission)
      return base
        .selectFrom('r')
        .select([sql<string | null>`null`.as('balance'), sql<number[] | null>`null`.as('notification_ids')]);
    const note = (kind: NotificationKind, payload: string) => ({
      program_id: p.program_id,
      kind,
      partner_id: p.n_partner_id,
      commission_id: p.commission_id!,
      payload: sql<Record<string, unknown>>`${payload}::jsonb`,
      created_at: p.created_at,
    });
    const notes = [note(p.n1_kind, p.n1_payload), ...(shape.notes === 2 ? [note(p.n2_kind, p.n2_payload)] : [])];
    const withCommission = base
      .with('c', (d) =>
        d
          .updateTable('commission')
          .set((eb) => ({
            reversed_cents: eb('reversed_cents', '+', p.c_deduction),
            status: p.c_status,
            reason: p.c_reason,
            updated_at: p.c_updated_at,
          }))
          .where('id', '=', p.commission_id!)
          .returning('id'),
      )
      .with('n', (d) => d.insertInto('notification').values(notes).returning('id'));
    // The outbox rows' ids, in order, from the statement's own CTE.
    const ids = sql<number[] | null>`(select array_agg(n.id order by n.id) from n)`.as('notification_ids');
    if (!shape.ledger) return withCommission.selectFrom('r').select([sql<string | null>`null`.as('balance'), ids]);
    const posting = ledgerWrites(
      db,
      {
        partnerId: p.l_partnerId,
        currency: p.l_currency,
        deltaCents: p.l_deltaCents,
        kind: p.l_kind,
        commissionId: p.l_commissionId,
        refundId: null,
        payoutId: null,
        at: p.l_at,
      },
      sql<number>`(select id from r)`,
    );
    return withCommission
      .with('b', posting.balance)
      .with('e', posting.entry)
      .selectFrom('b')
      .select((eb) => [exactText(eb.ref('b.balance_cents')).as('balance'), ids]);
  });
}
const WRITES = {
  none: writeStatement({ commission: false, notes: 1, ledger: false }),
  one: writeStatement({ commission: true, notes: 1, ledger: false }),
  two: writeStatement({ commission: true, notes: 2, ledger: false }),
  oneLedger: writeStatement({ commission: true, notes: 1, ledger: true }),
  twoLedger: writeStatement({ commission: true, notes: 2, ledger: true }),
};

/**
 * The writes of an applied refund in one statement (`writeStatement`). Returns the new balance
 * (null when not posted) and the notification ids.
 */
export async function writeRefund(
  em: EntityManager,
  w: RefundWrite,
): Promise<{ balance: bigint | null; notificationIds: number[] }> {
  const c = w.commission;
  const [n1, n2] = c?.notifications ?? [];
  const posting = c?.ledger ? postingOf(c.ledger) : null;
  const statement = !c
    ? WRITES.none
    : n2
      ? posting
        ? WRITES.twoLedger
        : WRITES.two
      : posting
        ? WRITES.oneLedger
        : WRITES.one;
  const [row] = await statement.run(em, {
    ...w.refund,
    c_deduction: c?.deduction ?? 0,
    c_status: c?.status ?? 'refunded',
    c_reason: c?.reason ?? null,
    c_updated_at: c?.updatedAt ?? w.refund.created_at,
    n_partner_id: n1?.partner_id ?? 0,
    n1_kind: n1?.kind ?? 'partner_commission_refunded',
    n1_payload: JSON.stringify(n1?.payload ?? null),
    n2_kind: n2?.kind ?? 'advertiser_manual_review',
    n2_payload: JSON.stringify(n2?.payload ?? null),
    l_partnerId: posting?.partnerId ?? 0,
    l_currency: posting?.currency ?? '',
    l_deltaCents: posting?.deltaCents ?? 0,
    l_kind: posting?.kind ?? 'refund_deduction',
    l_commissionId: posting?.commissionId ?? null,
    l_refundId: null,
    l_payoutId: null,
    l_at: posting?.at ?? w.refund.created_at,
  });
  return {
    balance: row?.balance == null ? null : bigCents(row.balance),
    notificationIds: row?.notification_ids ?? [],
  };
}
