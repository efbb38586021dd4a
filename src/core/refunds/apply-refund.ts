import type { CoreDeps, MoneyEvents } from '../deps.ts';
import type { RefundJob } from '../jobs/refund-job.ts';
import { AppError } from '../shared/errors.ts';
import { TestEvent } from '../entities/test-event.ts';
import { posting as ledgerPosting, type Posting } from '../ledger/ledger.ts';
import { idempotencyKey, planRefund, refundEffect, type RefundedCommission } from './refund-plan.ts';
import { findProviderTestSale, findRefundedSale, readRefundContext } from './refund-statements.ts';
import { writeRefund, type NotificationRow } from './refund-writes.ts';
import { emitCommissionUpdated } from '../outbound/use-case-events.ts';

/**
 * Outcome of a refund call (all answered 200).
 * `deductionCents` is the commission amount reversed by this call, in the commission's currency;
 * `notificationIds` and `deliveryIds` (outbound events) are outbox rows to deliver after commit.
 */
export type RefundResult =
  | {
      kind: 'applied';
      status: 'refunded' | 'reversed';
      deductionCents: number;
      balanceDeductionCents: number;
      commissionId: number;
      notificationIds: number[];
      /** Absent in results of workers that enqueued their deliveries themselves (job-results.ts). */
      deliveryIds?: number[];
    }
  | { kind: 'skipped'; reason: string; commissionId: number }
  | { kind: 'no_commission'; message: string }
  /** The sale is a test sale (test key, `livemode: false`, `additional_data.test_mode`): no commission. */
  | { kind: 'test'; eventId: number; programId: number };

/**
 * A provider refund whose sale is not recorded (yet): nothing was written. Providers do not order
 * their deliveries, so its caller decides: the webhook path parks it (parked-refunds.ts) or asks the
 * provider's API (refund-sale-lookup.ts); a caller that retries the job makes it a RetryableError.
 */
export type SaleNotRecorded = { kind: 'sale_not_recorded'; message: string };

/**
 * Applies one refund to a sale (the one path for API and provider refunds), under the sale's row
 * lock: adds it to the sale's cumulative refunded amount (capped), reduces the commission in
 * proportion (`refundEffect`), deducts from the partner balance through the ledger when credited,
 * and writes the notifications, all in one transaction.
 *
 * Round trips: the lock, which also reads the commission and the refund's idempotency check (read
 * again on their own when a refund that held the lock before changed the sale); every write, the
 * ledger's posting included, in one statement; the open-payout check only when a credited balance
 * went down.
 * A provider refund arriving before its sale is `sale_not_recorded` (`SaleNotRecorded`).
 * @throws AppError `not_found` (no such sale in the program, an API refund).
 */
export async function applyRefund(deps: CoreDeps, job: RefundJob): Promise<RefundResult | SaleNotRecorded> {
  if (job.test) return testSaleOrFail(deps.em, job, 'test sale');
  // Reported once the transaction committed (a rolled-back refund moved no money).
  let moved = null as Parameters<MoneyEvents['refundApplied']>[0] | null;
  // `clear`: the transaction reads every row itself, under its locks, never an entity an earlier
  // use-case left in the caller's context (several jobs of one webhook row share it).
  const result = await deps.em.transactional(
    async (em): Promise<RefundResult | SaleNotRecorded> => {
      const key = idempotencyKey(job);
      const locked = await findRefundedSale(em, job, key);
      if (!locked) return testSaleOrFail(em, job, 'sale');
      const sale = locked.sale;
      const { commission, prior, priorPaidCents, coveredPaidCents } =
        locked.context ?? (await readRefundContext(em, sale.id, job, key));
      const plan = planRefund(sale, job, priorPaidCents, coveredPaidCents);
      const skip = (reason: string): RefundResult =>
        commission ? { kind: 'skipped', reason, commissionId: commission.id } : noCommission();
      if (plan.kind === 'skip') return skip(plan.reason);
      if (prior) {
        return skip(
          plan.refundId
            ? `refund_id ${plan.refundId} already applied`
            : 'a refund of the same amount was already applied to this sale (treated as a retry)',
        );
      }
      if (commission?.status === 'reversed') return skip('commission already reversed');

      const now = new Date(job.receivedAt);
      const effect = refundEffect(sale, commission, plan.amountCents);
      const given = job.refundReason || job.reason || null;
      const reason = given ?? commission?.reason ?? null;
      moved = {
        provider: sale.provider,
        currency: sale.currency,
        refundedCents: effect.appliedCents,
        deductionCents: effect.deductionCents,
      };
      // A credited commission's deduction comes off the balance: the ledger's posting, written in
      // the refund's own statement, applied whole by it.
      const posting: Posting | null =
        commission && effect.balanceDeductionCents
          ? ledgerPosting({
              partnerId: commission.partner,
              currency: commission.currency,
              deltaCents: -effect.balanceDeductionCents,
              kind: 'refund_deduction',
              commissionId: commission.id,
              at: now,
            })
          : null;
      const written = await writeRefund(em, {
        refund: {
          program_id: job.programId,
          sale_id: sale.id,
          commission_id: commission?.id ?? null,
          refund_id: plan.refundId,
          requested_cents: plan.requestedCents,
          applied_cents: effect.appliedCents,
          deduction_cents: effect.deductionCents,
          balance_deduction_cents: effect.balanceDeductionCents,
          reason: given,
          source: job.origin,
          created_at: now,
        },
        commission: commission
          ? {
              id: commission.id,
              deduction: effect.deductionCents,
              status: effect.status,
              reason,
              updatedAt: deps.clock(),
              notifications: refundNotifications(
                job.programId,
                commission,
                {
                  commission_id: commission.id,
                  sale_id: sale.id,
                  transaction_id: sale.transactionId,
                  status: effect.status,
                  deduction_cents: effect.deductionCents,
                  currency: commission.currency,
                  refund_reason: reason,
                },
                now,
              ),
              posting,
            }
          : undefined,
      });
      if (!commission) return noCommission();
      const deliveryIds = await emitCommissionUpdated({ ...deps, em }, job.programId, [commission.id], effect.status, {
        refund: { refund_id: plan.refundId, amount_cents: effect.appliedCents, deduction_cents: effect.deductionCents },
      });
      deps.log.info(
        {
          programId: job.programId,
          saleId: sale.id,
          commissionId: commission.id,
          status: effect.status,
          deduction: effect.deductionCents,
          refundedCents: effect.refundedTotalCents,
        },
        'refund applied',
      );
      return {
        kind: 'applied' as const,
        status: effect.status,
        deductionCents: effect.deductionCents,
        balanceDeductionCents: effect.balanceDeductionCents,
        commissionId: commission.id,
        notificationIds: written.notificationIds,
        deliveryIds,
      };
    },
    { clear: true },
  );
  if (moved) deps.events?.refundApplied(moved);
  return result;
}

/** The partner's notice, and the advertiser's manual-review warning when the commission was already paid out (spec). */
function refundNotifications(
  programId: number,
  commission: RefundedCommission,
  payload: Record<string, unknown>,
  at: Date,
): NotificationRow[] {
  const row = (kind: NotificationRow['kind'], p: Record<string, unknown>): NotificationRow => ({
    program_id: programId,
    kind,
    partner_id: commission.partner,
    commission_id: commission.id,
    payload: p,
    created_at: at,
  });
  const rows = [row('partner_commission_refunded', payload)];
  if (commission.paidAt) {
    const paidOut = { paid_at: commission.paidAt.toISOString(), payout_id: commission.payout };
    rows.push(row('advertiser_manual_review', { ...payload, ...paidOut }));
  }
  return rows;
}

/**
 * No live sale under this id (or a test refund). A test sale recorded with a live key (`livemode:
 * false`, `additional_data.test_mode: true`) and a Paddle refund (no test flag of its own) are test
 * refunds: the sale they name decides. Provider refunds may name it by a linked alias, and arrive in
 * any order (RefundJob.origin): a missing sale is not an error of the refund.
 */
async function testSaleOrFail(
  em: CoreDeps['em'],
  job: RefundJob,
  what: string,
): Promise<RefundResult | SaleNotRecorded> {
  const testSale =
    job.origin === 'provider'
      ? await findProviderTestSale(em, job.programId, job.transactionId)
      : await em.findOne(TestEvent, { program: job.programId, transactionId: job.transactionId }, { fields: ['id'] });
  if (testSale) return { kind: 'test', eventId: testSale.id, programId: job.programId };
  if (job.origin === 'provider')
    return { kind: 'sale_not_recorded', message: `${what} ${job.transactionId} not recorded yet` };
  throw new AppError('not_found', `No ${what} with this transaction_id in this program`, {
    transaction_id: job.transactionId,
  });
}

function noCommission(): RefundResult {
  return { kind: 'no_commission', message: 'The sale has no commission to reverse' };
}
