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
import { DEFAULT_PAYOUT_SETTINGS } from '../entities/payout-settings.ts';
import { partnersWithMethod } from './payout-methods.ts';
import { settle } from './pay-payout.ts';
import { emitPayoutCreated } from '../outbound/use-case-events.ts';
import { typedSql } from '../db/sql.ts';
import type { Currency, PayoutRail } from '../shared/vocabulary.ts';

export type PayoutRunResult = {
  run: IPayoutRun;
  payouts: IPayout[];
  /** Partners with a positive balance the run passed by, and why (below the minimum, all owed back…). */
  skipped: Array<{ partnerId: number; reason: string }>;
  /** Outbound event deliveries the run wrote, to enqueue after it returned. */
  deliveryIds: number[];
};

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
    return { run: existing, payouts: await deps.em.find(Payout, { run: existing.id }), skipped: [], deliveryIds: [] };
  }
  const minimumCents = Math.max(1, settings.minimum_cents[input.currency] ?? 0);
  const payouts: IPayout[] = [];
  const skipped: PayoutRunResult['skipped'] = [];
  // A failure midway leaves the deliveries of the partners paid before it to the outbox sweeper.
  const deliveryIds: number[] = [];
  for (const partnerId of await payablePartners(deps, programId, input.currency, rail)) {
    const result = await deps.em.transactional(async (em) => {
      const r = await settle(
        em,
        now,
        {
          programId,
          partnerId,
          currency: input.currency,
          payoutId: null,
          commissionId: null,
          status: 'processing',
          creditedBefore: run.creditedBefore,
          run: { id: run.id, rail, minimumCents },
        },
        deps.sealer,
      );
      if (!('skipped' in r)) deliveryIds.push(...(await emitPayoutCreated({ ...deps, em }, r.payout)));
      return r;
    });
    if ('skipped' in result) skipped.push({ partnerId, reason: result.skipped });
    else payouts.push(result.payout);
  }
  run.payoutCount = payouts.length;
  run.totalCents = payouts.reduce((sum, p) => sum + p.amountCents, 0);
  await deps.em.flush();
  deps.log.info(
    { programId, runId: run.id, rail, currency: input.currency, payouts: payouts.length, skipped: skipped.length },
    'payout run created',
  );
  return { run, payouts, skipped, deliveryIds };
}

/**
 * Partners of the program with a positive balance in the currency, and, for a rail that pays a
 * person, payout details of that rail (the others cannot be paid through it).
 */
async function payablePartners(
  deps: CoreDeps,
  programId: number,
  currency: string,
  rail: PayoutRail,
): Promise<number[]> {
  const rows = await typedSql(deps.em)
    .selectFrom('partner_balance as b')
    .innerJoin('partner as p', 'p.id', 'b.partner_id')
    .select('b.partner_id')
    .where('p.program_id', '=', programId)
    .where('b.currency', '=', currency)
    .where('b.balance_cents', '>', 0)
    .orderBy('b.partner_id')
    .execute();
  const ids = rows.map((r) => r.partner_id);
  if (rail === 'manual') return ids;
  const withMethod = new Set(await partnersWithMethod(deps.em, programId, rail));
  return ids.filter((id) => withMethod.has(id));
}

/** A run and its payouts. @throws AppError `not_found`. */
export async function getPayoutRun(
  deps: CoreDeps,
  programId: number,
  runId: number,
): Promise<{ run: IPayoutRun; payouts: IPayout[] }> {
  const run = await deps.em.findOne(PayoutRun, { id: runId, program: programId });
  if (!run) throw new AppError('not_found', 'No such payout run in this program');
  return { run, payouts: await deps.em.find(Payout, { run: runId }, { orderBy: { id: 'asc' } }) };
}
