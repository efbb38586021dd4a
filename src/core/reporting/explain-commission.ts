import type { CoreDeps } from '../deps.ts';
import { DAY_MS } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { toRecord, type StoredRow } from '../shared/records.ts';
import { formatMoney } from '../shared/money.ts';
import { Commission, type ICommission } from '../entities/commission.ts';
import { Program } from '../entities/program.ts';
import { Refund, type IRefund } from '../entities/refund.ts';

/** Where a commission stands, in the words a merchant asks about. */
export type CommissionState = 'held' | 'pending' | 'credited' | 'paid' | 'partly_refunded' | 'reversed';

/** A commission, the refunds that reduced it, and why it stands where it does (oldest cause first). */
export type CommissionExplanation = {
  commission: StoredRow<ICommission>;
  refunds: StoredRow<IRefund>[];
  state: CommissionState;
  reasons: string[];
};

type Facts = Pick<
  ICommission,
  'status' | 'amountCents' | 'reversedCents' | 'currency' | 'reason' | 'heldForReview' | 'hold' | 'creditedAt'
> &
  Pick<ICommission, 'paidAt' | 'payout' | 'createdAt'>;

/**
 * The reasons, from the stored facts alone (pure): fraud rules that held or rejected it with their
 * evidence, a disputed customer, each refund's share, the hold period it waits for, its credit and
 * its payout.
 */
export function describeCommission(
  c: Facts,
  refunds: ReadonlyArray<Pick<IRefund, 'appliedCents' | 'deductionCents' | 'reason' | 'source' | 'createdAt'>>,
  holdPeriodDays: number,
): { state: CommissionState; reasons: string[] } {
  const money = (cents: number) => formatMoney(cents, c.currency);
  const reasons: string[] = [];
  for (const r of c.hold?.rules ?? [])
    reasons.push(`Fraud rule "${r.rule}" matched on ${c.hold!.held_at}: ${JSON.stringify(r.evidence)}`);
  if (c.hold?.released_at) reasons.push(`Released by the merchant on ${c.hold.released_at}`);
  if (c.hold?.rejected_at) reasons.push(`Rejected as fraud by the merchant on ${c.hold.rejected_at}`);
  if (c.heldForReview && !c.hold) reasons.push('Held for review: the customer has an open dispute (chargeback)');
  for (const r of refunds)
    reasons.push(
      `Refund (${r.source}${r.reason ? `, ${r.reason}` : ''}) on ${r.createdAt.toISOString()}: ${money(r.appliedCents)} of the sale refunded, ${money(r.deductionCents)} of the commission reversed`,
    );
  if (c.reason && c.status !== 'pending') reasons.push(`Recorded reason: ${c.reason}`);
  let state: CommissionState;
  if (c.status === 'reversed') state = 'reversed';
  else if (c.heldForReview) state = 'held';
  else if (c.paidAt) state = 'paid';
  else if (c.creditedAt) state = c.status === 'refunded' ? 'partly_refunded' : 'credited';
  else if (c.status === 'refunded') state = 'partly_refunded';
  else state = 'pending';
  if (c.heldForReview && c.hold && !c.hold.released_at && !c.hold.rejected_at)
    reasons.push('Waiting for the merchant to release or reject it; it is not approved automatically meanwhile');
  if (!c.creditedAt && !c.heldForReview && c.status !== 'reversed') {
    const due = new Date(c.createdAt.getTime() + holdPeriodDays * DAY_MS).toISOString();
    reasons.push(`Not credited yet: approved automatically when the ${holdPeriodDays}-day hold period ends (${due})`);
  }
  if (c.creditedAt)
    reasons.push(
      `Credited to the partner balance on ${c.creditedAt.toISOString()}: ${money(c.amountCents - c.reversedCents)} remains`,
    );
  if (c.paidAt) reasons.push(`Paid out on ${c.paidAt.toISOString()}${c.payout ? ` (payout ${c.payout})` : ''}`);
  return { state, reasons };
}

/** A commission of the program explained. @throws AppError `not_found`. */
export async function explainCommission(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
): Promise<CommissionExplanation> {
  const c = await deps.em.findOne(Commission, { id: commissionId, program: programId });
  if (!c) throw new AppError('not_found', 'No such commission in this program');
  const [program, refunds] = await Promise.all([
    deps.em.findOneOrFail(Program, { id: programId }, { fields: ['holdPeriodDays'] }),
    deps.em.find(Refund, { commission: c.id, program: programId }, { orderBy: { id: 'asc' } }),
  ]);
  return {
    commission: toRecord(c),
    refunds: refunds.map(toRecord),
    ...describeCommission(c, refunds, program.holdPeriodDays),
  };
}
