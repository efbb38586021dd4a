import type { RefundJob } from '../jobs/refund-job.ts';
import { computeReversal } from '../shared/money.ts';

/** The sale columns a refund reads, under the sale's row lock. */
export type LockedSale = {
  id: number;
  transactionId: string;
  amountCents: number;
  refundedCents: number;
  paidCents: number | null;
  currency: string;
  provider: string | null;
};

/** The sale's commission, as a refund reads it after the sale's lock was taken. */
export type RefundedCommission = {
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
};

/** The sale's commission and the refund's idempotency facts. */
export type RefundContext = {
  commission: RefundedCommission | null;
  /** This refund (same key) was already applied. */
  prior: boolean;
  /** What earlier provider refunds of this sale asked for, one refund at a time, in paid terms. */
  priorPaidCents: number;
  /** The largest running total the provider reported for this sale (cumulative refunds), in paid terms. */
  coveredPaidCents: number;
};

/**
 * What identifies a retry of this refund (planRefund gives the same key): its `refund_id` (a
 * cumulative total is keyed by the total), else the amount requested; none for "the rest".
 */
export type RefundKey = { refundId: string } | { requestedCents: number } | null;

export function idempotencyKey(job: RefundJob): RefundKey {
  if (job.amount.type === 'cumulative') return { refundId: `cumulative-${job.amount.totalCents}` };
  if (!job.amount.cents) return null;
  return job.refundId ? { refundId: job.refundId } : { requestedCents: job.amount.cents };
}

export type RefundPlan =
  | { kind: 'skip'; reason: string }
  | { kind: 'apply'; amountCents: number; requestedCents: number | null; refundId: string | null };

/**
 * Turns the job's amount form into this call's own amount (in `sale.amountCents` terms) and
 * idempotency key. Provider amounts are amounts of the customer's payment; when the sale's base
 * excludes tax (`paidCents` set) they are scaled onto it from cumulative totals, so partial
 * refunds never drift and the whole payment refunded is the whole sale.
 * `priorPaidCents`: what earlier provider refunds of this sale asked for, one at a time, in paid terms.
 * `coveredPaidCents`: the largest running total the provider reported for the sale. A provider
 * that reports both (Polar's `order.refunded` beside `refund.*`, Stripe's `charge.refunded` without
 * its list beside `refund.*`) may send the total first: a later refund then applies only what lies
 * beyond it, so the same money never applies twice, in whichever order the two arrive.
 */
export function planRefund(
  sale: Pick<LockedSale, 'amountCents' | 'refundedCents' | 'paidCents'>,
  job: Pick<RefundJob, 'amount' | 'origin' | 'refundId'>,
  priorPaidCents: number,
  coveredPaidCents = 0,
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
  const start = job.origin === 'provider' ? Math.max(priorPaidCents, coveredPaidCents) : priorPaidCents;
  const end = priorPaidCents + job.amount.cents;
  if (end <= start) return { kind: 'skip', reason: "already applied through the provider's refunded total" };
  const own = scaled === null && start === priorPaidCents ? job.amount.cents : toSaleTerms(end) - toSaleTerms(start);
  return { kind: 'apply', amountCents: own, requestedCents: job.amount.cents, refundId: job.refundId };
}

/** What an applied refund changes, decided before anything is written. */
export type RefundEffect = {
  /** Added to the sale's refunded total (capped at what remains of the sale). */
  appliedCents: number;
  refundedTotalCents: number;
  /** Commission amount reversed (0 without a commission). */
  deductionCents: number;
  /** Part of the deduction taken from the partner balance: only a credited commission's. */
  balanceDeductionCents: number;
  /** The commission's new status: `reversed` once the whole sale is refunded. */
  status: 'refunded' | 'reversed';
};

/** The money an applied refund moves: the cap, the proportional reversal, the balance's share. */
export function refundEffect(
  sale: Pick<LockedSale, 'amountCents' | 'refundedCents'>,
  commission: Pick<RefundedCommission, 'amountCents' | 'reversedCents' | 'credited'> | null,
  plannedCents: number,
): RefundEffect {
  const appliedCents = Math.min(plannedCents, sale.amountCents - sale.refundedCents);
  const refundedTotalCents = sale.refundedCents + appliedCents;
  const deductionCents = commission
    ? computeReversal({
        commissionCents: commission.amountCents,
        saleAmountCents: sale.amountCents,
        refundedTotalCents,
        alreadyReversedCents: commission.reversedCents,
      })
    : 0;
  return {
    appliedCents,
    refundedTotalCents,
    deductionCents,
    balanceDeductionCents: commission?.credited && deductionCents > 0 ? deductionCents : 0,
    status: refundedTotalCents >= sale.amountCents ? 'reversed' : 'refunded',
  };
}
