import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps, MoneyEvents } from './deps.ts';
import type { RefundJob } from './jobs/refund-job.ts';
import { AppError, RetryableError } from './errors.ts';
import { computeReversal } from './money.ts';
import type { NotificationKind } from './entities/notification.ts';
import { TestEvent } from './entities/test-event.ts';
import { fitOpenPayouts } from './adjust-partner-balance.ts';
import { findLinkedTransactionId } from './link-payment.ts';

/**
 * Outcome of a refund call (all answered 200).
 * `deductionCents` is the commission amount reversed by this call, in the commission's currency;
 * `notificationIds` are outbox rows to deliver after commit.
 */
export type RefundResult =
  | {
      kind: 'applied';
      status: 'refunded' | 'reversed';
      deductionCents: number;
      balanceDeductionCents: number;
      commissionId: number;
      notificationIds: number[];
    }
  | { kind: 'skipped'; reason: string; commissionId: number }
  | { kind: 'no_commission'; message: string }
  /** The sale is a test sale (test key, `livemode: false`, `additional_data.test_mode`): no commission. */
  | { kind: 'test'; eventId: number; programId: number };

/** The sale columns a refund reads, under the sale's row lock. */
type LockedSale = {
  id: number;
  transactionId: string;
  amountCents: number;
  refundedCents: number;
  paidCents: number | null;
  currency: string;
  provider: string | null;
};

/** The sale's commission and the refund's idempotency facts, read after the lock was taken. */
type RefundContext = {
  commission: {
    id: number;
    partner: number;
    amountCents: number;
    reversedCents: number;
    currency: string;
    status: string;
    reason: string | null;
    credited: boolean;
    paidAt: Date | null;
    payout: number | null;
  } | null;
  prior: boolean;
  priorPaidCents: number;
};

/**
 * Applies one refund to a sale (the one path for API and provider refunds), under the sale's row
 * lock: adds it to the sale's cumulative refunded amount (capped), reduces the commission in
 * proportion, deducts from the partner balance when credited, and writes the notifications, all in
 * one transaction.
 *
 * Round trips: the lock, which also reads the commission and the refund's idempotency check
 * (read again on their own when a refund that held the lock before changed the sale: `lockSale`);
 * all writes in one statement; the open-payout check only when a credited balance went down.
 * @throws AppError `not_found` (no such sale in the program); RetryableError when a provider
 * refund arrives before its sale.
 */
export async function applyRefund(deps: CoreDeps, job: RefundJob): Promise<RefundResult> {
  if (job.test) return testRefund(deps, job);
  // Reported once the transaction committed (a rolled-back refund moved no money).
  let moved = null as Parameters<MoneyEvents['refundApplied']>[0] | null;
  // `clear`: the transaction reads every row itself, under its locks, never an entity an earlier
  // use-case left in the caller's context (several jobs of one webhook row share it).
  const result = await deps.em.transactional(
    async (em): Promise<RefundResult> => {
      const key = idempotencyKey(job);
      const locked = await findRefundedSale(em, job, key);
      if (!locked) {
        // A test sale recorded with a live key (`livemode: false`, `additional_data.test_mode: true`)
        // and a Paddle refund (no test flag of its own) are test refunds: the sale they name decides.
        // Provider refunds may name it by a linked alias.
        const testSale =
          job.origin === 'provider'
            ? await findProviderTestSale(em, job.programId, job.transactionId)
            : await em.findOne(
                TestEvent,
                { program: job.programId, transactionId: job.transactionId },
                { fields: ['id'] },
              );
        if (testSale) return { kind: 'test' as const, eventId: testSale.id, programId: job.programId };
        if (job.origin === 'provider') throw new RetryableError(`sale ${job.transactionId} not recorded yet`);
        throw new AppError('not_found', 'No sale with this transaction_id in this program', {
          transaction_id: job.transactionId,
        });
      }
      const sale = locked.sale;
      const { commission, prior, priorPaidCents } = locked.context ?? (await readRefundContext(em, sale, job, key));
      const plan = planRefund(sale, job, priorPaidCents);
      if (plan.kind === 'skip') {
        return commission
          ? { kind: 'skipped' as const, reason: plan.reason, commissionId: commission.id }
          : noCommission();
      }
      if (prior) {
        const why = plan.refundId
          ? `refund_id ${plan.refundId} already applied`
          : 'a refund of the same amount was already applied to this sale (treated as a retry)';
        return commission ? { kind: 'skipped' as const, reason: why, commissionId: commission.id } : noCommission();
      }
      if (commission?.status === 'reversed') {
        return { kind: 'skipped' as const, reason: 'commission already reversed', commissionId: commission.id };
      }

      const now = new Date(job.receivedAt);
      const applied = Math.min(plan.amountCents, sale.amountCents - sale.refundedCents);
      const refundedTotal = sale.refundedCents + applied;
      const refundRow = {
        program_id: job.programId,
        sale_id: sale.id,
        commission_id: commission?.id ?? null,
        refund_id: plan.refundId,
        requested_cents: plan.requestedCents,
        applied_cents: applied,
        reason: job.refundReason || job.reason || null,
        source: job.origin,
        created_at: now,
      };
      moved = { provider: sale.provider, currency: sale.currency, refundedCents: applied, deductionCents: 0 };
      if (!commission) {
        await writeRefund(em, {
          sale,
          applied,
          refund: { ...refundRow, deduction_cents: 0, balance_deduction_cents: 0 },
        });
        return noCommission();
      }

      const deduction = computeReversal({
        commissionCents: commission.amountCents,
        saleAmountCents: sale.amountCents,
        refundedTotalCents: refundedTotal,
        alreadyReversedCents: commission.reversedCents,
      });
      const status = refundedTotal >= sale.amountCents ? 'reversed' : 'refunded';
      const reason = job.refundReason || job.reason || commission.reason;
      moved.deductionCents = deduction;
      const balanceDeduction = commission.credited && deduction > 0 ? deduction : 0;
      const payload = {
        commission_id: commission.id,
        sale_id: sale.id,
        transaction_id: sale.transactionId,
        status,
        deduction_cents: deduction,
        currency: commission.currency,
        refund_reason: reason,
      };
      const notifications: Array<{ kind: NotificationKind; payload: Record<string, unknown> }> = [
        { kind: 'partner_commission_refunded', payload },
      ];
      if (commission.paidAt) {
        // Spec: the advertiser gets a manual-review warning when the commission was already paid out.
        const paidOut = { paid_at: commission.paidAt.toISOString(), payout_id: commission.payout };
        notifications.push({ kind: 'advertiser_manual_review', payload: { ...payload, ...paidOut } });
      }
      const written = await writeRefund(em, {
        sale,
        applied,
        refund: { ...refundRow, deduction_cents: deduction, balance_deduction_cents: balanceDeduction },
        commission: { id: commission.id, deduction, status, reason, updatedAt: new Date() },
        balance: balanceDeduction
          ? { partnerId: commission.partner, currency: commission.currency, deltaCents: -balanceDeduction, at: now }
          : null,
        notifications: notifications.map((n) => ({
          program_id: job.programId,
          kind: n.kind,
          partner_id: commission.partner,
          commission_id: commission.id,
          payload: n.payload,
          created_at: now,
        })),
      });
      if (written.balance !== null) {
        // Still under the balance's row lock (taken by the write): open payouts shrink to fit.
        await fitOpenPayouts(em, commission.partner, commission.currency, written.balance);
      }
      deps.log.info(
        {
          programId: job.programId,
          saleId: sale.id,
          commissionId: commission.id,
          status,
          deduction,
          refundedCents: refundedTotal,
        },
        'refund applied',
      );
      return {
        kind: 'applied' as const,
        status,
        deductionCents: deduction,
        balanceDeductionCents: balanceDeduction,
        commissionId: commission.id,
        notificationIds: written.notificationIds,
      };
    },
    { clear: true },
  );
  if (moved) deps.events?.refundApplied(moved);
  return result;
}

/** The locked sale, and its refund context when the locking statement's own read of it is current. */
type Locked = { sale: LockedSale; context: RefundContext | null };

/**
 * The sale a refund names, locked. Provider refunds may name it by a linked alias (a Stripe
 * PaymentIntent of an invoice recorded under the invoice id); API refunds by `transaction_id` only.
 */
async function findRefundedSale(
  em: EntityManager,
  job: RefundJob,
  key: ReturnType<typeof idempotencyKey>,
): Promise<Locked | null> {
  const locked = await lockSale(em, job, job.transactionId, key);
  if (locked || job.origin !== 'provider') return locked;
  const linked = await findLinkedTransactionId(em, job.programId, job.transactionId);
  return linked ? lockSale(em, job, linked, key) : null;
}

/**
 * Locks the sale and, in the same statement, reads its refund context (`readRefundContext`).
 * That read sees the statement's snapshot, taken before the lock was granted: it is used only
 * when the locked row is the version that snapshot sees (same `xmin`), i.e. nobody changed the
 * sale in between. Every applied refund changes the sale row, so a refund that held the lock
 * before this one makes the read stale, and the context is then read again under the lock.
 */
async function lockSale(
  em: EntityManager,
  job: RefundJob,
  transactionId: string,
  key: ReturnType<typeof idempotencyKey>,
): Promise<Locked | null> {
  const ctx = contextSql(job, key);
  const [row] = await em.execute<Array<ContextRow & SaleRow & { fresh: boolean }>>(
    `select s.id, s.transaction_id, s.amount_cents::float8 as amount_cents, s.refunded_cents::float8 as refunded_cents,
            s.paid_cents::float8 as paid_cents, s.currency, s.provider,
            s.xmin = (select s0.xmin from sale s0 where s0.id = s.id) as fresh, ${ctx.columns}
       from sale s left join commission c on c.sale_id = s.id
      where s.program_id = ? and s.transaction_id = ? for update of s`,
    [...ctx.params, job.programId, transactionId],
  );
  if (!row) return null;
  return {
    sale: {
      id: row.id,
      transactionId: row.transaction_id,
      amountCents: row.amount_cents,
      refundedCents: row.refunded_cents,
      paidCents: row.paid_cents,
      currency: row.currency,
      provider: row.provider,
    },
    context: row.fresh ? toContext(row) : null,
  };
}

type SaleRow = {
  id: number;
  transaction_id: string;
  amount_cents: number;
  refunded_cents: number;
  paid_cents: number | null;
  currency: string;
  provider: string | null;
};

/**
 * What identifies a retry of this refund (planRefund gives the same key): its `refund_id` (a
 * cumulative total is keyed by the total), else the amount requested; none for "the rest".
 */
function idempotencyKey(job: RefundJob): { refundId: string } | { requestedCents: number } | null {
  if (job.amount.type === 'cumulative') return { refundId: `cumulative-${job.amount.totalCents}` };
  if (!job.amount.cents) return null;
  return job.refundId ? { refundId: job.refundId } : { requestedCents: job.amount.cents };
}

type ContextRow = {
  prior: boolean;
  prior_paid: number;
  c_id: number | null;
  c_partner_id: number;
  c_amount_cents: number;
  c_reversed_cents: number;
  c_currency: string;
  c_status: string;
  c_reason: string | null;
  c_credited: boolean;
  c_paid_ms: number | null;
  c_payout_id: number | null;
};

/**
 * The select-list columns of a refund context, over `sale s left join commission c`: the
 * commission, whether this refund was already applied and (provider refunds of a sale whose base
 * excludes tax, `paid_cents` set) what earlier provider refunds asked for.
 */
function contextSql(job: RefundJob, key: ReturnType<typeof idempotencyKey>): { columns: string; params: unknown[] } {
  const prior =
    key === null
      ? 'false'
      : 'refundId' in key
        ? `exists (select 1 from refund r where r.sale_id = s.id and r.refund_id = ?)`
        : `exists (select 1 from refund r where r.sale_id = s.id and r.requested_cents = ?)`;
  const paid =
    job.origin === 'provider'
      ? `(case when coalesce(s.paid_cents, 0) <> 0
               then (select coalesce(sum(requested_cents), 0) from refund r where r.sale_id = s.id and r.source = 'provider')
               else 0 end)::float8`
      : '0::float8';
  return {
    columns: `${prior} as prior, ${paid} as prior_paid, c.id as c_id, c.partner_id as c_partner_id,
            c.amount_cents::float8 as c_amount_cents, c.reversed_cents::float8 as c_reversed_cents, c.currency as c_currency,
            c.status as c_status, c.reason as c_reason, c.credited_at is not null as c_credited,
            (extract(epoch from c.paid_at) * 1000)::float8 as c_paid_ms, c.payout_id as c_payout_id`,
    params: key === null ? [] : ['refundId' in key ? key.refundId : key.requestedCents],
  };
}

function toContext(r: ContextRow): RefundContext {
  return {
    prior: r.prior,
    priorPaidCents: Number(r.prior_paid),
    commission:
      r.c_id === null
        ? null
        : {
            id: r.c_id,
            partner: r.c_partner_id,
            amountCents: r.c_amount_cents,
            reversedCents: r.c_reversed_cents,
            currency: r.c_currency,
            status: r.c_status,
            reason: r.c_reason,
            credited: r.c_credited,
            paidAt: r.c_paid_ms === null ? null : new Date(r.c_paid_ms),
            payout: r.c_payout_id,
          },
  };
}

/**
 * The refund context read on its own, under the sale's lock (when the locking statement's read
 * was stale): it sees every refund committed by whoever held the lock before.
 */
async function readRefundContext(
  em: EntityManager,
  sale: LockedSale,
  job: RefundJob,
  key: ReturnType<typeof idempotencyKey>,
): Promise<RefundContext> {
  const ctx = contextSql(job, key);
  const [row] = await em.execute<ContextRow[]>(
    `select ${ctx.columns} from sale s left join commission c on c.sale_id = s.id where s.id = ?`,
    [...ctx.params, sale.id],
  );
  return toContext(row!);
}

type RefundWrite = {
  sale: LockedSale;
  applied: number;
  refund: Record<string, unknown>;
  commission?: { id: number; deduction: number; status: string; reason: string | null; updatedAt: Date };
  balance?: { partnerId: number; currency: string; deltaCents: number; at: Date } | null;
  notifications?: Array<Record<string, unknown>>;
};

/**
 * Every write of an applied refund in one statement: the sale's refunded total, the refund row,
 * the commission's reversal, the partner balance (added in PostgreSQL's bigint, under its row
 * lock) with its ledger entry, and the outbox rows. Returns the new balance (null when untouched)
 * and the notification ids.
 */
async function writeRefund(
  em: EntityManager,
  w: RefundWrite,
): Promise<{ balance: bigint | null; notificationIds: number[] }> {
  const params: unknown[] = [w.applied, w.sale.id];
  const ctes = ['s as (update sale set refunded_cents = refunded_cents + ? where id = ? returning id)'];
  const cols = Object.keys(w.refund);
  ctes.push(`r as (insert into refund (${cols.join(', ')}) values (${cols.map(() => '?').join(', ')}) returning id)`);
  params.push(...cols.map((k) => w.refund[k]));
  if (w.commission) {
    ctes.push(
      'c as (update commission set reversed_cents = reversed_cents + ?, status = ?, reason = ?, updated_at = ? where id = ? returning id)',
    );
    params.push(
      w.commission.deduction,
      w.commission.status,
      w.commission.reason,
      w.commission.updatedAt,
      w.commission.id,
    );
  }
  if (w.balance) {
    const b = w.balance;
    ctes.push(
      `b as (insert into partner_balance (partner_id, currency, balance_cents) values (?, ?, ?::bigint)
             on conflict (partner_id, currency) do update set balance_cents = partner_balance.balance_cents + excluded.balance_cents
             returning balance_cents)`,
      `e as (insert into balance_entry (partner_id, currency, delta_cents, kind, commission_id, refund_id, created_at)
             select ?, ?, ?, 'refund_deduction', ?, r.id, ? from r returning id)`,
    );
    params.push(b.partnerId, b.currency, String(b.deltaCents));
    params.push(b.partnerId, b.currency, b.deltaCents, w.commission?.id ?? null, b.at);
  }
  const notes = w.notifications ?? [];
  if (notes.length) {
    const ncols = ['program_id', 'kind', 'partner_id', 'commission_id', 'payload', 'created_at'];
    ctes.push(
      `n as (insert into notification (${ncols.join(', ')}) values ${notes
        .map(() => `(${ncols.map((k) => (k === 'payload' ? '?::jsonb' : '?')).join(', ')})`)
        .join(', ')} returning id)`,
    );
    for (const n of notes) params.push(...ncols.map((k) => (k === 'payload' ? JSON.stringify(n[k]) : n[k])));
  }
  const [row] = await em.execute<Array<{ balance: string | null; notification_ids: number[] | null }>>(
    `with ${ctes.join(',\n')}
     select ${w.balance ? '(select balance_cents::text from b)' : 'null::text'} as balance,
            ${notes.length ? '(select array_agg(id order by id) from n)' : 'null::int[]'} as notification_ids`,
    params,
  );
  return {
    balance: row?.balance == null ? null : BigInt(row.balance),
    notificationIds: row?.notification_ids ?? [],
  };
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

type RefundPlan =
  | { kind: 'skip'; reason: string }
  | { kind: 'apply'; amountCents: number; requestedCents: number | null; refundId: string | null };

/**
 * Turns the job's amount form into this call's own amount (in `sale.amountCents` terms) and
 * idempotency key. Provider amounts are amounts of the customer's payment; when the sale's base
 * excludes tax (`paidCents` set) they are scaled onto it from cumulative totals, so partial
 * refunds never drift and the whole payment refunded is the whole sale.
 * `priorPaidCents`: what earlier provider refunds of this sale asked for, in paid terms.
 */
function planRefund(
  sale: Pick<LockedSale, 'amountCents' | 'refundedCents' | 'paidCents'>,
  job: RefundJob,
  priorPaidCents: number,
): RefundPlan {
  const remaining = sale.amountCents - sale.refundedCents;
  const scaled = job.origin === 'provider' && sale.paidCents ? sale.paidCents : null;
  const toSaleTerms = (paidTotal: number) =>
    scaled === null
      ? Math.min(paidTotal, sale.amountCents)
      : Math.min(Math.round((paidTotal * sale.amountCents) / scaled), sale.amountCents);
  if (job.amount.type === 'cumulative') {
    // The provider reports a running total: apply only the increase; the total is the key.
    const increase = toSaleTerms(job.amount.totalCents) - sale.refundedCents;
    if (increase <= 0) return { kind: 'skip', reason: 'cumulative refund total already applied' };
    return {
      kind: 'apply',
      amountCents: increase,
      requestedCents: null,
      refundId: `cumulative-${job.amount.totalCents}`,
    };
  }
  if (!job.amount.cents) {
    // Omitted or 0: refund the rest; a refund id is ignored (spec: refund_id ignored then).
    if (remaining <= 0) return { kind: 'skip', reason: 'commission already reversed' };
    return { kind: 'apply', amountCents: remaining, requestedCents: null, refundId: null };
  }
  const own =
    scaled === null ? job.amount.cents : toSaleTerms(priorPaidCents + job.amount.cents) - toSaleTerms(priorPaidCents);
  return { kind: 'apply', amountCents: own, requestedCents: job.amount.cents, refundId: job.refundId };
}

function noCommission(): RefundResult {
  return { kind: 'no_commission', message: 'The sale has no commission to reverse' };
}

async function testRefund(deps: CoreDeps, job: RefundJob): Promise<RefundResult> {
  const em = deps.em;
  const event =
    job.origin === 'provider'
      ? await findProviderTestSale(em, job.programId, job.transactionId)
      : await em.findOne(TestEvent, { program: job.programId, transactionId: job.transactionId }, { fields: ['id'] });
  // Provider test refunds are as unordered as live ones (RefundJob.origin).
  if (!event && job.origin === 'provider') throw new RetryableError(`test sale ${job.transactionId} not recorded yet`);
  if (!event)
    throw new AppError('not_found', 'No test sale with this transaction_id in this program', {
      transaction_id: job.transactionId,
    });
  return { kind: 'test', eventId: event.id, programId: job.programId };
}
