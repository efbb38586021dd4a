/**
 * Payout runs: every partner of a program whose payable amount in one currency reaches the
 * minimum gets a `processing` payout (its commissions paid out, the balance lowered, as a paid
 * payout would), for the rail to carry: a batch file the merchant uploads (PayPal, Wise), Stripe
 * Connect transfers (payout-transfers.ts), or nothing (`manual`). The merchant then confirms each
 * payout `paid`, or marks it `failed`, which gives its amount back to the balance and makes its
 * commissions payable again (settle-payouts.ts).
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { type CoreDeps, DAY_MS } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { PayoutRun, type IPayoutRun } from '../entities/payout-run.ts';
import { PayoutRunSkip } from '../entities/payout-run-skip.ts';
import { DEFAULT_PAYOUT_SETTINGS, type PayoutSettings } from '../entities/payout-settings.ts';
import {
  clampCents,
  payoutCandidates,
  skipBeforePlan,
  type PayoutCandidate,
  type PayoutSkip,
} from './payout-candidates.ts';
import { settle, type SettleTarget } from './pay-payout.ts';
import { emitPayoutCreated } from '../outbound/use-case-events.ts';
import type { Currency, PayoutRail, PayoutSkipReason } from '../shared/vocabulary.ts';

export type PayoutRunResult = {
  run: IPayoutRun;
  payouts: IPayout[];
  /** Partners with a balance or pending commissions the run passed by, and why (payout-candidates.ts). */
  skipped: RunSkip[];
  /** Outbound event deliveries the run wrote, to enqueue after it returned. */
  deliveryIds: number[];
};

/** A partner a run passed by: the reason's code and sentence, and their balance then (minor units). */
export type RunSkip = { partnerId: number; code: PayoutSkipReason; reason: string; balanceCents: number };

export type PayoutRunInput = {
  currency: Currency;
  /** Default: the program's rail. */
  rail?: PayoutRail;
  /** A scheduled run: the day it is due (`YYYY-MM-DD`); the run happens once per day and currency. */
  scheduledFor?: string | null;
};

/**
 * Creates a run and its payouts, one transaction per partner (a partner's failure leaves the
 * others paid). A scheduled run that already exists is returned as it is, with no new payouts.
 * @throws AppError `not_found` (program).
 */
export async function createPayoutRun(
  deps: CoreDeps,
  programId: number,
  input: PayoutRunInput,
): Promise<PayoutRunResult> {
  const program = await deps.em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  const settings = program.payoutSettings ?? DEFAULT_PAYOUT_SETTINGS;
  const rail = input.rail ?? settings.rail;
  const now = deps.clock();
  const run = deps.em.create(PayoutRun, {
    program: programId,
    rail,
    currency: input.currency,
    creditedBefore: new Date(now.getTime() - settings.hold_days * DAY_MS),
    scheduledFor: input.scheduledFor ?? null,
    payoutCount: 0,
    totalCents: 0,
    createdAt: now,
  });
  try {
    await deps.em.flush();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException) || !input.scheduledFor) throw err;
    deps.em.clear();
    const existing = await deps.em.findOneOrFail(PayoutRun, {
      program: programId,
      currency: input.currency,
      scheduledFor: input.scheduledFor,
    });
    return { ...(await getPayoutRun(deps, programId, existing.id)), deliveryIds: [] };
  }
  const payouts: IPayout[] = [];
  const skipped: RunSkip[] = [];
  // A failure midway leaves the deliveries of the partners paid before it to the outbox sweeper.
  const deliveryIds: number[] = [];
  for (const c of await payoutCandidates(deps.em, programId, input.currency)) {
    const skip = (s: PayoutSkip) =>
      skipped.push({ partnerId: c.partnerId, ...s, balanceCents: clampCents(c.balanceCents) });
    const before = skipBeforePlan(c, rail);
    if (before) {
      skip(before);
      continue;
    }
    const result = await deps.em.transactional(async (em) => {
      const r = await settle(em, now, runTarget(programId, c, { ...run, rail }, settings), deps.sealer);
      if (!('skipped' in r)) deliveryIds.push(...(await emitPayoutCreated({ ...deps, em }, r.payout)));
      return r;
    });
    if ('skipped' in result) skip({ code: result.code, reason: result.skipped });
    else payouts.push(result.payout);
  }
  run.payoutCount = payouts.length;
  run.totalCents = payouts.reduce((sum, p) => sum + p.amountCents, 0);
  for (const s of skipped)
    deps.em.create(PayoutRunSkip, {
      run: run.id,
      partner: s.partnerId,
      code: s.code,
      reason: s.reason.slice(0, 255),
      balanceCents: s.balanceCents,
    });
  await deps.em.flush();
  deps.log.info(
    { programId, runId: run.id, rail, currency: input.currency, payouts: payouts.length, skipped: skipped.length },
    'payout run created',
  );
  return { run, payouts, skipped, deliveryIds };
}

/**
 * What a run settles for a candidate: their request (oldest open payout) when they made one, else
 * a new payout, paying everything due (commissions credited before the run's hold) when it
 * reaches the minimum.
 */
export function runTarget(
  programId: number,
  c: PayoutCandidate,
  run: { id: number; rail: PayoutRail; creditedBefore: Date },
  settings: PayoutSettings,
): SettleTarget {
  return {
    programId,
    partnerId: c.partnerId,
    currency: c.currency,
    payoutId: c.requestId,
    uncapped: true,
    commissionId: null,
    status: 'processing',
    creditedBefore: run.creditedBefore,
    run: { id: run.id, rail: run.rail, minimumCents: minimumOf(settings, c.currency) },
  };
}

/** The program's minimum payout in a currency (at least one minor unit). */
export const minimumOf = (settings: PayoutSettings, currency: string) =>
  Math.max(1, settings.minimum_cents[currency as Currency] ?? 0);

/** A run, its payouts and the partners it passed by. @throws AppError `not_found`. */
export async function getPayoutRun(
  deps: CoreDeps,
  programId: number,
  runId: number,
): Promise<{ run: IPayoutRun; payouts: IPayout[]; skipped: RunSkip[] }> {
  const run = await deps.em.findOne(PayoutRun, { id: runId, program: programId });
  if (!run) throw new AppError('not_found', 'No such payout run in this program');
  const skips = await deps.em.find(PayoutRunSkip, { run: runId }, { orderBy: { id: 'asc' } });
  return {
    run,
    payouts: await deps.em.find(Payout, { run: runId }, { orderBy: { id: 'asc' } }),
    skipped: skips.map((s) => ({ partnerId: s.partner, code: s.code, reason: s.reason, balanceCents: s.balanceCents })),
  };
}
