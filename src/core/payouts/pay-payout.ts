import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Commission, type ICommission } from '../entities/commission.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { lockBalance, posting, postToLedger, readBalances } from '../ledger/ledger.ts';
import { bigCents, exactText, safeCents, typedSql } from '../db/sql.ts';
import { computePayout, type PayoutPlan } from './compute-payout.ts';
import { emitPayoutPaid } from '../outbound/use-case-events.ts';
import type { PayoutRail, PayoutSkipReason } from '../shared/vocabulary.ts';
import { formatMoney } from '../shared/money.ts';
import type { Sealer } from '../shared/sealed-secrets.ts';
import { signStatementCheckpoint } from '../ledger/statement-checkpoints.ts';

/** A paid payout and the commissions it paid. */
export type PaidPayout = { payout: IPayout; commissions: ICommission[] };

/** A payout a use-case settled, with the outbound event deliveries it wrote (to enqueue after commit). */
export type SettledPayout = PaidPayout & { deliveryIds: number[] };

/**
 * Pays an open payout: whole credited, unpaid commissions of its partner and currency, oldest
 * credited first, as long as the amount stays within the payout's amount; what the partner owes
 * back (refunds of commissions already paid) is netted first. Each commission is marked paid with
 * this payout; the balance falls by exactly the amount paid, in the same transaction.
 * @throws AppError `not_found`, `invalid_request` (not open, or nothing to pay).
 */
export async function payPayout(deps: CoreDeps, programId: number, payoutId: number): Promise<SettledPayout> {
  return deps.em.transactional(async (em) => {
    const found = await em.findOne(Payout, { id: payoutId, program: programId });
    if (!found) throw new AppError('not_found', 'No such payout in this program');
    const paid = settledOrThrow(
      await settle(
        em,
        deps.clock(),
        {
          programId,
          partnerId: found.partner,
          currency: found.currency,
          payoutId,
          commissionId: null,
        },
        deps.sealer,
      ),
    );
    return { ...paid, deliveryIds: await emitPaid({ ...deps, em }, paid) };
  });
}

/**
 * Pays one chosen commission at once through a payout of its own (the admin's "pay this
 * commission"), with the same netting and balance effect as `payPayout`.
 * @throws AppError `not_found`, `invalid_request` (not credited, already paid, or nothing to pay).
 */
export async function payCommission(deps: CoreDeps, programId: number, commissionId: number): Promise<SettledPayout> {
  return deps.em.transactional(async (em) => {
    const c = await em.findOne(Commission, { id: commissionId, program: programId });
    if (!c) throw new AppError('not_found', 'No such commission in this program');
    if (!c.creditedAt) throw new AppError('invalid_request', 'Only a credited (approved) commission can be paid');
    if (c.paidAt)
      throw new AppError('invalid_request', `Commission is already paid${c.payout ? ` (payout ${c.payout})` : ''}`);
    const paid = settledOrThrow(
      await settle(
        em,
        deps.clock(),
        {
          programId,
          partnerId: c.partner,
          currency: c.currency,
          payoutId: null,
          commissionId,
        },
        deps.sealer,
      ),
    );
    return { ...paid, deliveryIds: await emitPaid({ ...deps, em }, paid) };
  });
}

/** `payout.paid` and the paid commissions' `commission.updated`, in the payout's transaction. */
const emitPaid = (deps: CoreDeps, paid: PaidPayout) =>
  emitPayoutPaid(
    deps,
    paid.payout,
    paid.commissions.map((c) => c.id),
  );

export type SettleTarget = {
  programId: number;
  partnerId: number;
  currency: string;
  /** An open payout to pay; null: a new payout. */
  payoutId: number | null;
  /** Pay this commission alone. */
  commissionId: number | null;
  /** `paid` (paid at once) or `processing` (a run's payout, sent to a rail and confirmed later). */
  status?: 'paid' | 'processing';
  /** Only commissions credited at or before this instant (a schedule's hold). */
  creditedBefore?: Date;
  /** A run paying an open payout (a partner's request): everything due, not only the amount asked. */
  uncapped?: boolean;
  /** A run's payout: its run, rail and minimum (a smaller amount is left for a later run). */
  run?: { id: number; rail: PayoutRail; minimumCents: number };
};

/** Why nothing was paid (a reason of PAYOUT_SKIP_REASONS and its sentence), with what the partner still owes back. */
export type Unsettled = { skipped: string; code: PayoutSkipReason; owedCents: number };

/**
 * What `settle` would pay for `t`, read under row locks (`lock`) or as a plain read (a preview).
 * `unpaidCents`: every credited, unpaid commission of the partner in the currency, before the
 * schedule's hold too; `plan`: what a payout of the due ones pays.
 */
export async function planSettlement(em: EntityManager, t: SettleTarget, lock: boolean) {
  const lockMode = { lockMode: lock ? LockMode.PESSIMISTIC_WRITE : LockMode.NONE } as const;
  const candidates = await em.find(
    Commission,
    {
      partner: t.partnerId,
      currency: t.currency,
      creditedAt: t.creditedBefore ? { $ne: null, $lte: t.creditedBefore } : { $ne: null },
      paidAt: null,
      ...(t.commissionId ? { id: t.commissionId } : {}),
    },
    { ...lockMode, orderBy: { creditedAt: 'asc', id: 'asc' } },
  );
  const { balanceCents } = lock
    ? await lockBalance(em, t.partnerId, t.currency)
    : {
        balanceCents: (await readBalances(em, t.partnerId)).find((b) => b.currency === t.currency)?.balanceCents ?? 0n,
      };
  // With the balance locked, every committed change to it also changed the unpaid credited
  // commissions, so the two are read consistently. Sums in SQL, never in floating point.
  const unpaid = await typedSql(em)
    .selectFrom('commission')
    .select((eb) =>
      exactText(eb.fn.coalesce(eb.fn.sum(eb('amount_cents', '-', eb.ref('reversed_cents'))), eb.lit(0))).as('total'),
    )
    .where('partner_id', '=', t.partnerId)
    .where('currency', '=', t.currency)
    .where('credited_at', 'is not', null)
    .where('paid_at', 'is', null)
    .executeTakeFirstOrThrow();
  const owed = safeCents(bigCents(unpaid.total) - balanceCents);
  let payout: IPayout | null = null;
  if (t.payoutId !== null) {
    payout = await em.findOneOrFail(Payout, { id: t.payoutId }, lockMode);
    if (payout.status !== 'open') throw new AppError('invalid_request', `Payout is ${payout.status}`);
  }
  const plan = computePayout(
    candidates.map((c) => ({ id: c.id, unpaidCents: c.amountCents - c.reversedCents })),
    owed,
    payout && !t.uncapped ? payout.amountCents : null,
  );
  return { candidates, balanceCents, unpaidCents: bigCents(unpaid.total), owed, payout, plan };
}

/** Why a planned payout pays nothing, or less than the run's minimum (null: it pays). */
export function unsettledReason(
  plan: PayoutPlan,
  owed: number,
  t: Pick<SettleTarget, 'currency' | 'run' | 'creditedBefore'>,
): Unsettled | null {
  const owedCents = Math.max(0, owed);
  if (plan.amountCents <= 0) {
    if (plan.commissionIds.length)
      return {
        code: 'negative_balance',
        skipped: 'Nothing to pay: the commissions only cover what the partner owes back',
        owedCents,
      };
    return {
      code: 'held',
      skipped: t.creditedBefore
        ? 'Held: no credited, unpaid commission is due yet (the schedule holds the newest)'
        : 'Nothing to pay: no credited, unpaid commission fits the payout amount',
      owedCents,
    };
  }
  if (t.run && plan.amountCents < t.run.minimumCents)
    return {
      code: 'below_minimum',
      skipped: `Below the minimum payout (${formatMoney(plan.amountCents, t.currency)} < ${formatMoney(t.run.minimumCents, t.currency)})`,
      owedCents,
    };
  return null;
}

/**
 * Pays what `t` selects, or says why nothing can be paid (nothing credited and unpaid, only what
 * the partner owes back, or below the run's minimum). The caller's transaction; lock order, shared
 * with refunds and approvals: commission rows, then the balance, then payouts. A payout signs its
 * partner's statement head in the same transaction (`sealer`: the signing key's; absent, none).
 */
export async function settle(
  em: EntityManager,
  now: Date,
  t: SettleTarget,
  sealer: Sealer | undefined,
): Promise<PaidPayout | Unsettled> {
  const { candidates, owed, plan, payout: open } = await planSettlement(em, t, true);
  let payout = open;
  const unsettled = unsettledReason(plan, owed, t);
  if (unsettled) return unsettled;
  const status = t.status ?? 'paid';
  if (!payout) {
    payout = em.create(Payout, {
      program: t.programId,
      partner: t.partnerId,
      currency: t.currency,
      status: 'open',
      requestedCents: null,
      amountCents: 0,
      createdAt: now,
      paidAt: null,
      run: t.run?.id ?? null,
      rail: t.run?.rail ?? null,
      externalId: null,
      failedAt: null,
      failureReason: null,
    });
  }
  Object.assign(payout, {
    // A partner's request a run pays becomes the run's payout.
    ...(t.run && { run: t.run.id, rail: t.run.rail }),
    status,
    amountCents: plan.amountCents,
    commissionsCents: plan.commissionsCents,
    nettedCents: plan.nettedCents,
    paidAt: status === 'paid' ? now : null,
  });
  await em.flush();
  // A processing payout's commissions are paid out already: the money has left the balance.
  const paid = candidates.filter((c) => plan.commissionIds.includes(c.id));
  for (const c of paid) {
    c.paidAt = now;
    c.payout = payout.id;
    if (c.status === 'approved') c.status = 'paid';
  }
  await em.flush();
  await postToLedger(
    em,
    posting({
      partnerId: t.partnerId,
      currency: t.currency,
      deltaCents: -plan.amountCents,
      kind: 'payout',
      payoutId: payout.id,
      at: now,
    }),
  );
  await signStatementCheckpoint(em, sealer, { now, programId: t.programId, partnerId: t.partnerId, reason: 'payout' });
  return { payout, commissions: paid };
}

/** A settlement the caller asked for by name: nothing to pay is the caller's error. */
export function settledOrThrow(r: PaidPayout | Unsettled): PaidPayout {
  if ('skipped' in r) throw new AppError('invalid_request', r.skipped, { owed_cents: r.owedCents });
  return r;
}
