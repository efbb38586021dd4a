/**
 * What a payout run would do, without doing it: every partner with a balance or commissions not
 * credited yet, per currency, paid or passed by and why, with the amounts behind the answer. It
 * reads the run's own candidates (payout-candidates.ts) and plans each payout with the run's own
 * planner (`planSettlement`, as a plain read, no lock), so the preview and the run agree.
 */
import { type CoreDeps, DAY_MS } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { DEFAULT_PAYOUT_SETTINGS } from '../entities/payout-settings.ts';
import { clampCents, payoutCandidates, skipBeforePlan, type PayoutSkip } from './payout-candidates.ts';
import { planSettlement, unsettledReason } from './pay-payout.ts';
import { minimumOf, runTarget } from './payout-runs.ts';
import type { Currency, PayoutMethodKind, PayoutRail } from '../shared/vocabulary.ts';

/** One partner in one currency. Amounts are minor units of `currency`. */
export type PayoutPreviewRow = {
  partnerId: number;
  name: string;
  code: string;
  currency: string;
  method: PayoutMethodKind | null;
  /** Paid: the run pays `payableCents`; skipped: `skip` says why. */
  outcome: 'paid' | 'skipped';
  skip: PayoutSkip | null;
  balanceCents: number;
  /** What a payout would pay now (commissions due, less what the partner owes back). */
  payableCents: number;
  /** Credited but within the schedule's `hold_days`: a later run pays them. */
  notDueCents: number;
  /** Not credited yet (hold period or approval), and held for review. */
  pendingCents: number;
  reviewHeldCents: number;
  /** What the partner owes back (refunds of commissions already paid), netted first. */
  owedCents: number;
  minimumCents: number;
  /** The partner's open payout the run would pay (their request), null when none. */
  requestId: number | null;
};

export type PayoutPreview = { rail: PayoutRail; creditedBefore: Date; rows: PayoutPreviewRow[] };

/**
 * The preview of a run through `rail` (default: the program's) in `currency` (null: every
 * currency). @throws AppError `not_found` (program).
 */
export async function previewPayoutRun(
  deps: CoreDeps,
  programId: number,
  input: { currency: Currency | null; rail?: PayoutRail },
): Promise<PayoutPreview> {
  const program = await deps.em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  const settings = program.payoutSettings ?? DEFAULT_PAYOUT_SETTINGS;
  const rail = input.rail ?? settings.rail;
  const creditedBefore = new Date(deps.clock().getTime() - settings.hold_days * DAY_MS);
  const rows: PayoutPreviewRow[] = [];
  for (const c of await payoutCandidates(deps.em, programId, input.currency)) {
    const target = runTarget(programId, c, { id: 0, rail, creditedBefore }, settings);
    const { plan, owed, candidates, unpaidCents } = await planSettlement(deps.em, target, false);
    const unsettled = unsettledReason(plan, owed, target);
    const skip = skipBeforePlan(c, rail) ?? (unsettled && { code: unsettled.code, reason: unsettled.skipped });
    const due = candidates.reduce((sum, x) => sum + BigInt(x.amountCents - x.reversedCents), 0n);
    rows.push({
      partnerId: c.partnerId,
      name: c.name,
      code: c.code,
      currency: c.currency,
      method: c.method,
      outcome: skip ? 'skipped' : 'paid',
      skip,
      balanceCents: clampCents(c.balanceCents),
      payableCents: plan.amountCents,
      notDueCents: clampCents(unpaidCents - due),
      pendingCents: clampCents(c.pendingCents),
      reviewHeldCents: clampCents(c.reviewHeldCents),
      owedCents: Math.max(0, owed),
      minimumCents: minimumOf(settings, c.currency),
      requestId: c.requestId,
    });
  }
  return { rail, creditedBefore, rows };
}
