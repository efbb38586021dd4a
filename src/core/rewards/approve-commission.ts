import { LockMode } from '@mikro-orm/core';
import { DAY_MS, forkDeps, type CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Commission, type ICommission } from '../entities/commission.ts';
import { Program } from '../entities/program.ts';
import { posting, postToLedger } from '../ledger/ledger.ts';
import { emitCommissionUpdated } from '../outbound/use-case-events.ts';

/** A commission a use-case changed, with the outbound event deliveries it wrote (to enqueue after commit). */
export type ChangedCommission = { commission: ICommission; deliveryIds: number[] };

/**
 * Credits a commission: moves it out of `pending` to `approved` (a partially refunded one keeps
 * `refunded`) and adds what remains of it to the partner balance, in one transaction.
 * @throws AppError `not_found` (not in this program), `invalid_request` (already credited or
 * reversed, or held by fraud rules: review-held-commission.ts).
 */
export async function approveCommission(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
): Promise<ChangedCommission> {
  return deps.em.transactional(async (em) => {
    const c = await em.findOne(
      Commission,
      { id: commissionId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!c) throw new AppError('not_found', 'No such commission in this program');
    if (c.creditedAt || c.status === 'reversed')
      throw new AppError('invalid_request', `Commission is ${c.creditedAt ? 'already credited' : c.status}`);
    if (c.heldForReview && c.hold)
      throw new AppError('invalid_request', 'Commission is held by fraud rules: release or reject it', {
        commission_id: c.id,
      });
    const now = deps.clock();
    c.creditedAt = now;
    if (c.status === 'pending') c.status = 'approved';
    await em.flush();
    const remaining = c.amountCents - c.reversedCents;
    if (remaining > 0) {
      await postToLedger(
        em,
        posting({
          partnerId: c.partner,
          currency: c.currency,
          deltaCents: remaining,
          kind: 'commission_credit',
          commissionId: c.id,
          at: now,
        }),
      );
    }
    return { commission: c, deliveryIds: await emitCommissionUpdated({ ...deps, em }, programId, [c.id], 'approved') };
  });
}

/**
 * Hold-period sweep: approves every pending commission older than its program's hold period, each
 * in its own transaction; returns how many, and their outbound event deliveries. When one fails
 * unexpectedly, the deliveries of those approved before it are left to the outbox sweeper.
 */
export async function approveDueCommissions(
  deps: CoreDeps,
  limit = 200,
): Promise<{ approved: number; deliveryIds: number[] }> {
  const now = deps.clock().getTime();
  const programs = await deps.em.find(Program, {}, { fields: ['id', 'holdPeriodDays'] });
  let approved = 0;
  const deliveryIds: number[] = [];
  for (const program of programs) {
    // Ids only, outside the identity map: the sweep's must not grow by a page per program.
    const due = await deps.em.find(
      Commission,
      {
        program: program.id,
        status: { $in: ['pending', 'refunded'] },
        creditedAt: null,
        heldForReview: false,
        createdAt: { $lte: new Date(now - program.holdPeriodDays * DAY_MS) },
      },
      { fields: ['id'], limit, orderBy: { id: 'asc' }, disableIdentityMap: true },
    );
    for (const c of due) {
      try {
        // A unit of work per approval (forkDeps): each commits alone, and its transaction must not
        // copy in the commissions approved before.
        deliveryIds.push(...(await approveCommission(forkDeps(deps), program.id, c.id)).deliveryIds);
        approved++;
      } catch (err) {
        // Raced with a refund or an admin approval: the next sweep sees the new state.
        if (!(err instanceof AppError)) throw err;
      }
    }
  }
  if (approved) deps.log.info({ approved }, 'hold period elapsed: commissions approved');
  return { approved, deliveryIds };
}
