import type { EntityManager } from '@mikro-orm/sql';
import { sql } from 'kysely';
import type { RefundJob } from './jobs/refund-job.ts';
import type { NotificationKind } from './entities/notification.ts';
import { TestEvent } from './entities/test-event.ts';
import { findLinkedTransactionId } from './link-payment.ts';
import type { LockedSale, RefundContext, RefundEffect, RefundKey } from './refund-plan.ts';
import { bigCents, cents, dateFromMs, epochMs, exactText, typedSql } from './sql.ts';
import { ledgerWrites, type LedgerEntry } from './ledger.ts';

/** The locked sale, and its refund context when the locking statement's own read of it is current. */
export type Locked = { sale: LockedSale; context: RefundContext | null };

/**
 * The sale a refund names, locked. Provider refunds may name it by a linked alias (a Stripe
 * PaymentIntent of an invoice recorded under the invoice id) or carry a second id of it
 * (`saleAlias`); API refunds name it by `transaction_id` only.
 */
export async function findRefundedSale(em: EntityManager, job: RefundJob, key: RefundKey): Promise<Locked | null> {
  const locked = await lockSale(em, job, job.transactionId, key);
  if (locked || job.origin !== 'provider') return locked;
  const linked = await findLinkedTransactionId(em, job.programId, job.transactionId);
  const viaLink = linked ? await lockSale(em, job, linked, key) : null;
  return viaLink ?? (job.saleAlias ? lockSale(em, job, job.saleAlias, key) : null);
}

/**
 * The refund context over `sale s left join commission c`: the commission, whether this refund was
 * already applied and (provider refunds of a sale whose base excludes tax, `paid_cents` set) what
 * earlier provider refunds asked for. Amounts read exactly (`exactText`).
 */
function contextQuery(em: EntityManager, job: RefundJob, key: RefundKey) {
  return typedSql(em)
    .selectFrom('sale as s')
    .leftJoin('commission as c', 'c.sale_id', 's.id')
    .select((eb) => {
      const earlier = eb.selectFrom('refund as r').whereRef('r.sale_id', '=', 's.id');
      const prior =
        key === null
          ? eb.lit(false)
          : eb.exists(
              'refundId' in key
                ? earlier.select('r.id').where('r.refund_id', '=', key.refundId)
                : earlier.select('r.id').where('r.requested_cents', '=', key.requestedCents),
            );
      const priorPaid =
        job.origin === 'provider'
          ? eb
              .case()
              .when(eb.fn.coalesce('s.paid_cents', eb.lit(0)), '<>', 0)
              .then(
                earlier
                  .where('r.source', '=', 'provider')
                  .select((e) => e.fn.coalesce(e.fn.sum('r.requested_cents'), e.lit(0)).as('sum')),
              )
              .else(0)
              .end()
          : eb.lit(0);
      return [
        prior.as('prior'),
        exactText(priorPaid).as('prior_paid'),
        'c.id as c_id',
        'c.partner_id as c_partner_id',
        exactText(eb.ref('c.amount_cents')).as('c_amount_cents'),
        exactText(eb.ref('c.reversed_cents')).as('c_reversed_cents'),
        'c.currency as c_currency',
        'c.status as c_status',
        'c.reason as c_reason',
        eb('c.credited_at', 'is not', null).as('c_credited'),
        epochMs(eb.ref('c.paid_at')).as('c_paid_ms'),
        'c.payout_id as c_payout_id',
      ];
    });
}

type ContextRow = Awaited<ReturnType<ReturnType<typeof contextQuery>['executeTakeFirstOrThrow']>>;

function toContext(r: ContextRow): RefundContext {
  return {
    prior: Boolean(r.prior),
    priorPaidCents: cents(r.prior_paid),
    commission:
      r.c_id === null
        ? null
        : {
            id: r.c_id,
            partner: r.c_partner_id!,
            amountCents: cents(r.c_amount_cents),
            reversedCents: cents(r.c_reversed_cents),
            currency: r.c_currency!,
            status: r.c_status!,
            reason: r.c_reason,
            credited: Boolean(r.c_credited),
            paidAt: dateFromMs(r.c_paid_ms),
            payout: r.c_payout_id,
          },
  };
}

/**
 * Locks the sale and, in the same statement, reads its refund context. That read sees the
 * statement's snapshot, taken before the lock was granted: it is used only when the locked row is
 * the version that snapshot sees (same `xmin`), i.e. nobody changed the sale in between. Every
 * applied refund changes the sale row, so a refund that held the lock before this one makes the read
 * stale, and the context is then read again under the lock (`readRefundContext`).
 */
async function lockSale(
  em: EntityManager,
  job: RefundJob,
  transactionId: string,
  key: RefundKey,
): Promise<Locked | null> {
  const row = await contextQuery(em, job, key)
    .select((eb) => [
      's.id',
      's.transaction_id',
      exactText(eb.ref('s.amount_cents')).as('amount_cents'),
      exactText(eb.ref('s.refunded_cents')).as('refunded_cents'),
      exactText(eb.ref('s.paid_cents')).as('paid_cents'),
      's.currency',
      's.provider',
      // Raw: `xmin` is a system column, outside the entity-inferred schema.
      sql<boolean>`s.xmin = (select s0.xmin from sale s0 where s0.id = s.id)`.as('fresh'),
    ])
    .where('s.program_id', '=', job.programId)
    .where('s.transaction_id', '=', transactionId)
    .forUpdate('s')
    .executeTakeFirst();
  if (!row) return null;
  return {
    sale: {
      id: row.id,
      transactionId: row.transaction_id,
      amountCents: cents(row.amount_cents),
      refundedCents: cents(row.refunded_cents),
      paidCents: row.paid_cents === null ? null : cents(row.paid_cents),
      currency: row.currency,
      provider: row.provider,
    },
    context: row.fresh ? toContext(row) : null,
  };
}

/**
 * The refund context read on its own, under the sale's lock (when the locking statement's read
 * was stale): it sees every refund committed by whoever held the lock before.
 */
export async function readRefundContext(
  em: EntityManager,
  saleId: number,
  job: RefundJob,
  key: RefundKey,
): Promise<RefundContext> {
  return toContext(await contextQuery(em, job, key).where('s.id', '=', saleId).executeTakeFirstOrThrow());
}

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

/**
 * The writes of an applied refund in one statement: the sale's refunded total, the refund row and,
 * with a commission, its reversal, the outbox rows and the ledger's posting (`ledgerWrites`, naming
 * the refund row). Returns the new balance (null when not posted) and the notification ids.
 */
export async function writeRefund(
  em: EntityManager,
  w: RefundWrite,
): Promise<{ balance: bigint | null; notificationIds: number[] }> {
  const r = w.refund;
  const base = typedSql(em)
    .with('s', (db) =>
      db
        .updateTable('sale')
        .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', r.applied_cents) }))
        .where('id', '=', r.sale_id)
        .returning('id'),
    )
    .with('r', (db) => db.insertInto('refund').values(r).returning('id'));
  const c = w.commission;
  if (!c) {
    await base.selectFrom('r').select('r.id').executeTakeFirstOrThrow();
    return { balance: null, notificationIds: [] };
  }
  const withCommission = base
    .with('c', (db) =>
      db
        .updateTable('commission')
        .set((eb) => ({
          reversed_cents: eb('reversed_cents', '+', c.deduction),
          status: c.status,
          reason: c.reason,
          updated_at: c.updatedAt,
        }))
        .where('id', '=', c.id)
        .returning('id'),
    )
    .with('n', (db) =>
      db
        .insertInto('notification')
        .values(c.notifications.map((n) => ({ ...n, payload: sql`${JSON.stringify(n.payload)}::jsonb` })))
        .returning('id'),
    );
  // The outbox rows' ids, in order, from the statement's own CTE.
  const notificationIds = sql<number[] | null>`(select array_agg(n.id order by n.id) from n)`.as('notification_ids');
  if (!c.ledger) {
    const row = await withCommission.selectNoFrom([notificationIds]).executeTakeFirstOrThrow();
    return { balance: null, notificationIds: row.notification_ids ?? [] };
  }
  const posting = ledgerWrites(em, c.ledger, sql<number>`(select id from r)`);
  const row = await withCommission
    .with('b', posting.balance)
    .with('e', posting.entry)
    .selectFrom('b')
    .select((eb) => [exactText(eb.ref('b.balance_cents')).as('balance'), notificationIds])
    .executeTakeFirstOrThrow();
  return { balance: bigCents(row.balance), notificationIds: row.notification_ids ?? [] };
}

/** A provider's test sale named directly or through a linked alias. */
export async function findProviderTestSale(
  em: EntityManager,
  programId: number,
  transactionId: string,
): Promise<{ id: number } | null> {
  const direct = await em.findOne(TestEvent, { program: programId, transactionId }, { fields: ['id'] });
  if (direct) return direct;
  const linked = await findLinkedTransactionId(em, programId, transactionId);
  return linked ? em.findOne(TestEvent, { program: programId, transactionId: linked }, { fields: ['id'] }) : null;
}
