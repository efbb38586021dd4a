import type { EntityManager } from '@mikro-orm/sql';
import { sql, type Kysely } from 'kysely';
import type { NotificationKind } from '../entities/notification.ts';
import type { RefundEffect } from './refund-plan.ts';
import { compileStatement, exactText, type DB } from '../db/sql.ts';
import { compilePostingStatement, type Posting } from '../ledger/ledger.ts';

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
    posting: Posting | null;
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
};

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
 * with a commission, its reversal and its one or two outbox rows (`withCommission`). Every shape
 * compiled once.
 */
function refundWrites(db: Kysely<DB>, p: WriteParams, notes: 1 | 2) {
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
  const note = (kind: NotificationKind, payload: string) => ({
    program_id: p.program_id,
    kind,
    partner_id: p.n_partner_id,
    commission_id: p.commission_id!,
    payload: sql<Record<string, unknown>>`${payload}::jsonb`,
    created_at: p.created_at,
  });
  const rows = [note(p.n1_kind, p.n1_payload), ...(notes === 2 ? [note(p.n2_kind, p.n2_payload)] : [])];
  return {
    base,
    withCommission: () =>
      base
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
        .with('n', (d) => d.insertInto('notification').values(rows).returning('id')),
  };
}

// The outbox rows' ids, in order, from the statement's own CTE.
const notificationIds = sql<number[] | null>`(select array_agg(n.id order by n.id) from n)`.as('notification_ids');

const withoutPosting = (shape: { commission: boolean; notes: 1 | 2 }) =>
  compileStatement((db, p: WriteParams) => {
    const w = refundWrites(db, p, shape.notes);
    if (!shape.commission) return w.base.selectFrom('r').select(sql<number[] | null>`null`.as('notification_ids'));
    return w.withCommission().selectFrom('r').select(notificationIds);
  });

/** With the ledger's posting of the balance's share, naming the refund row: applied whole by its runner. */
const withPosting = (notes: 1 | 2) =>
  compilePostingStatement((db, p: WriteParams, writes) => {
    const posting = writes(sql<number>`(select id from r)`);
    return refundWrites(db, p, notes)
      .withCommission()
      .with('b', posting.balance)
      .with('e', posting.entry)
      .selectFrom('b')
      .select((eb) => [exactText(eb.ref('b.balance_cents')).as('balance'), notificationIds]);
  });

const WRITES = {
  none: withoutPosting({ commission: false, notes: 1 }),
  one: withoutPosting({ commission: true, notes: 1 }),
  two: withoutPosting({ commission: true, notes: 2 }),
  oneLedger: withPosting(1),
  twoLedger: withPosting(2),
};

/**
 * The writes of an applied refund in one statement, the ledger's posting included (its after-step
 * applied by the statement's runner). Returns the notification ids.
 */
export async function writeRefund(em: EntityManager, w: RefundWrite): Promise<{ notificationIds: number[] }> {
  const c = w.commission;
  const [n1, n2] = c?.notifications ?? [];
  const params: WriteParams = {
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
  };
  if (c?.posting) {
    const { row } = await (n2 ? WRITES.twoLedger : WRITES.oneLedger).run(em, params, c.posting);
    return { notificationIds: row.notification_ids ?? [] };
  }
  const [row] = await (!c ? WRITES.none : n2 ? WRITES.two : WRITES.one).run(em, params);
  return { notificationIds: row?.notification_ids ?? [] };
}
