import type { EntityManager } from '@mikro-orm/sql';
import { sql, type Kysely } from 'kysely';
import type { RefundJob } from '../jobs/refund-job.ts';
import { TestEvent } from '../entities/test-event.ts';
import { findLinkedTransactionId } from './link-payment.ts';
import type { LockedSale, RefundContext, RefundKey } from './refund-plan.ts';
import { cents, compileStatement, dateFromMs, epochMs, exactText, type DB } from '../db/sql.ts';

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

type KeyKind = 'none' | 'refundId' | 'requestedCents';
type ContextParams = { programId: number; transactionId: string; saleId: number; key: string | number | null };
const keyKind = (key: RefundKey): KeyKind =>
  key === null ? 'none' : 'refundId' in key ? 'refundId' : 'requestedCents';
const keyValue = (key: RefundKey) => (key === null ? null : 'refundId' in key ? key.refundId : key.requestedCents);

/**
 * The refund context over `sale s left join commission c`: the commission, whether this refund was
 * already applied and (provider refunds of a sale whose base excludes tax, `paid_cents` set) what
 * earlier provider refunds asked for. Amounts read exactly (`exactText`).
 */
function contextQuery(db: Kysely<DB>, p: ContextParams, kind: KeyKind, origin: RefundJob['origin']) {
  return db
    .selectFrom('sale as s')
    .leftJoin('commission as c', 'c.sale_id', 's.id')
    .select((eb) => {
      const earlier = eb.selectFrom('refund as r').whereRef('r.sale_id', '=', 's.id');
      const prior =
        kind === 'none'
          ? eb.lit(false)
          : eb.exists(
              kind === 'refundId'
                ? earlier.select('r.id').where('r.refund_id', '=', p.key as string)
                : earlier.select('r.id').where('r.requested_cents', '=', p.key as number),
            );
      // Provider refunds only: what earlier ones asked for one at a time, and the largest running
      // total reported (a cumulative refund's id is `cumulative-<total>`, refund-plan.ts).
      const priorPaid =
        origin === 'provider'
          ? earlier
              .where('r.source', '=', 'provider')
              .select((e) => e.fn.coalesce(e.fn.sum('r.requested_cents'), e.lit(0)).as('sum'))
          : eb.lit(0);
      const covered =
        origin === 'provider'
          ? earlier
              .where('r.source', '=', 'provider')
              .where('r.refund_id', 'like', 'cumulative-%')
              .select(sql<string>`coalesce(max(substring(r.refund_id from 12)::bigint), 0)`.as('covered'))
          : eb.lit(0);
      return [
        prior.as('prior'),
        exactText(priorPaid).as('prior_paid'),
        exactText(covered).as('prior_covered'),
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

/** Locks the sale by transaction id and reads its context in the same statement (`lockSale`). */
const lockStatement = (kind: KeyKind, origin: RefundJob['origin']) =>
  compileStatement((db, p: ContextParams) =>
    contextQuery(db, p, kind, origin)
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
      .where('s.program_id', '=', p.programId)
      .where('s.transaction_id', '=', p.transactionId)
      .forUpdate('s'),
  );

/** The context alone, by sale id (`readRefundContext`). */
const readStatement = (kind: KeyKind, origin: RefundJob['origin']) =>
  compileStatement((db, p: ContextParams) => contextQuery(db, p, kind, origin).where('s.id', '=', p.saleId));

/** Every shape, compiled once: key kind × origin. */
function byShape<T>(make: (kind: KeyKind, origin: RefundJob['origin']) => T) {
  const kinds: KeyKind[] = ['none', 'refundId', 'requestedCents'];
  const table = new Map(kinds.flatMap((k) => (['api', 'provider'] as const).map((o) => [`${k}/${o}`, make(k, o)])));
  return (key: RefundKey, origin: RefundJob['origin']): T => table.get(`${keyKind(key)}/${origin}`)!;
}
const LOCK = byShape(lockStatement);
const READ = byShape(readStatement);

type ContextRow = Awaited<ReturnType<ReturnType<typeof READ>['run']>>[number];

function toContext(r: ContextRow): RefundContext {
  return {
    prior: Boolean(r.prior),
    priorPaidCents: cents(r.prior_paid),
    coveredPaidCents: cents(r.prior_covered),
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
  const params = { programId: job.programId, transactionId, saleId: 0, key: keyValue(key) };
  const [row] = await LOCK(key, job.origin).run(em, params);
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
  const params = { programId: job.programId, transactionId: '', saleId, key: keyValue(key) };
  const [row] = await READ(key, job.origin).run(em, params);
  return toContext(row!);
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
