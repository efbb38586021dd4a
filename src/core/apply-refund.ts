import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps, MoneyEvents } from './deps.ts';
import type { RefundJob } from './jobs/refund-job.ts';
import { AppError, RetryableError } from './errors.ts';
import { computeReversal } from './money.ts';
import { Sale, type ISale } from './entities/sale.ts';
import { Commission } from './entities/commission.ts';
import { Refund } from './entities/refund.ts';
import { Notification } from './entities/notification.ts';
import { TestEvent } from './entities/test-event.ts';
import { adjustPartnerBalance } from './adjust-partner-balance.ts';
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

/**
 * Applies one refund to a sale (the one path for API and provider refunds), under the sale's row
 * lock: adds it to the sale's cumulative refunded amount (capped), reduces the commission in
 * proportion, deducts from the partner balance when credited, and writes the notifications, all in
 * one transaction.
 * @throws AppError `not_found` (no such sale in the program); RetryableError when a provider
 * refund arrives before its sale.
 */
export async function applyRefund(deps: CoreDeps, job: RefundJob): Promise<RefundResult> {
  if (job.test) return testRefund(deps, job);
  // Reported once the transaction committed (a rolled-back refund moved no money).
  let moved = null as Parameters<MoneyEvents['refundApplied']>[0] | null;
  const result = await deps.em.fork().transactional(async (em): Promise<RefundResult> => {
    const sale = await findRefundedSale(em, job);
    if (!sale) {
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
    const commission = await em.findOne(Commission, { sale: sale.id });
    const plan = planRefund(
      sale,
      job,
      job.origin === 'provider' && sale.paidCents ? await sumProviderRequestedCents(em, sale.id) : 0,
    );
    if (plan.kind === 'skip') {
      return commission
        ? { kind: 'skipped' as const, reason: plan.reason, commissionId: commission.id }
        : noCommission();
    }
    const prior = plan.refundId
      ? await em.findOne(Refund, { sale: sale.id, refundId: plan.refundId })
      : plan.requestedCents !== null
        ? await em.findOne(Refund, { sale: sale.id, requestedCents: plan.requestedCents })
        : null;
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
    sale.refundedCents += applied;
    const refund = em.create(Refund, {
      program: job.programId,
      sale: sale.id,
      commission: commission?.id ?? null,
      refundId: plan.refundId,
      requestedCents: plan.requestedCents,
      appliedCents: applied,
      deductionCents: 0,
      reason: job.refundReason || job.reason,
      source: job.origin,
      createdAt: now,
    });
    const money = {
      provider: sale.provider ?? null,
      currency: sale.currency,
      refundedCents: applied,
      deductionCents: 0,
    };
    moved = money;
    if (!commission) {
      await em.flush();
      return noCommission();
    }

    const deduction = computeReversal({
      commissionCents: commission.amountCents,
      saleAmountCents: sale.amountCents,
      refundedTotalCents: sale.refundedCents,
      alreadyReversedCents: commission.reversedCents,
    });
    const status = sale.refundedCents >= sale.amountCents ? 'reversed' : 'refunded';
    money.deductionCents = deduction;
    commission.reversedCents += deduction;
    commission.status = status;
    commission.reason = job.refundReason || job.reason || commission.reason;
    refund.deductionCents = deduction;
    await em.flush();
    if (commission.creditedAt && deduction > 0) {
      refund.balanceDeductionCents = deduction;
      await adjustPartnerBalance(em, {
        partnerId: commission.partner,
        currency: commission.currency,
        deltaCents: -deduction,
        kind: 'refund_deduction',
        commissionId: commission.id,
        refundId: refund.id,
        at: now,
      });
    }
    const payload = {
      commission_id: commission.id,
      sale_id: sale.id,
      transaction_id: sale.transactionId,
      status,
      deduction_cents: deduction,
      currency: commission.currency,
      refund_reason: commission.reason,
    };
    const notes = [
      em.create(Notification, {
        program: job.programId,
        kind: 'partner_commission_refunded',
        partnerId: commission.partner,
        commissionId: commission.id,
        payload,
        createdAt: now,
      }),
    ];
    if (commission.paidAt) {
      // Spec: the advertiser gets a manual-review warning when the commission was already paid out.
      const paidOut = { paid_at: commission.paidAt.toISOString(), payout_id: commission.payout ?? null };
      notes.push(
        em.create(Notification, {
          program: job.programId,
          kind: 'advertiser_manual_review',
          partnerId: commission.partner,
          commissionId: commission.id,
          payload: { ...payload, ...paidOut },
          createdAt: now,
        }),
      );
    }
    await em.flush();
    deps.log.info(
      {
        programId: job.programId,
        saleId: sale.id,
        commissionId: commission.id,
        status,
        deduction,
        refundedCents: sale.refundedCents,
      },
      'refund applied',
    );
    return {
      kind: 'applied' as const,
      status,
      deductionCents: deduction,
      balanceDeductionCents: refund.balanceDeductionCents,
      commissionId: commission.id,
      notificationIds: notes.map((n) => n.id),
    };
  });
  if (moved) deps.events?.refundApplied(moved);
  return result;
}

/**
 * The sale a refund names, locked. Provider refunds may name it by a linked alias (a Stripe
 * PaymentIntent of an invoice recorded under the invoice id); API refunds by `transaction_id` only.
 */
async function findRefundedSale(em: EntityManager, job: RefundJob): Promise<ISale | null> {
  const lock = { lockMode: LockMode.PESSIMISTIC_WRITE } as const;
  const sale = await em.findOne(Sale, { program: job.programId, transactionId: job.transactionId }, lock);
  if (sale || job.origin !== 'provider') return sale;
  const linked = await findLinkedTransactionId(em, job.programId, job.transactionId);
  return linked ? em.findOne(Sale, { program: job.programId, transactionId: linked }, lock) : null;
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

/** Sum of the amounts provider refunds asked for on this sale, in the provider's paid terms. */
async function sumProviderRequestedCents(em: EntityManager, saleId: number): Promise<number> {
  const [row] = await em.execute<Array<{ total: string | number | null }>>(
    `select coalesce(sum(requested_cents), 0) as total from refund where sale_id = ? and source = 'provider'`,
    [saleId],
  );
  return Number(row?.total ?? 0);
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
function planRefund(sale: ISale, job: RefundJob, priorPaidCents: number): RefundPlan {
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
  const em = deps.em.fork();
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
