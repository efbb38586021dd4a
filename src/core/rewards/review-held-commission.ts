import { LockMode } from '@mikro-orm/core';
import { forkDeps, type CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Commission } from '../entities/commission.ts';
import { approveCommission, type ChangedCommission } from './approve-commission.ts';
import { emitCommissionUpdated } from '../outbound/use-case-events.ts';

/**
 * The merchant's decision on a commission held by fraud rules (fraud-rules.ts). Releasing credits
 * it at once, exactly once (approve-commission.ts refuses a second credit); rejecting reverses it
 * whole, and, as it was never credited, no balance moves.
 */
async function decide(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
  decision: 'released' | 'rejected',
): Promise<number[]> {
  const deliveryIds = await deps.em.transactional(async (em) => {
    const c = await em.findOne(
      Commission,
      { id: commissionId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!c) throw new AppError('not_found', 'No such commission in this program');
    if (!c.heldForReview || !c.hold)
      throw new AppError('invalid_request', 'This commission is not held by fraud rules', {
        commission_id: commissionId,
      });
    const at = deps.clock();
    c.heldForReview = false;
    c.hold = { ...c.hold, [decision === 'released' ? 'released_at' : 'rejected_at']: at.toISOString() };
    if (decision === 'rejected' && !c.creditedAt && c.status !== 'reversed') {
      c.status = 'reversed';
      c.reversedCents = c.amountCents;
      c.reason = `rejected as fraud: ${c.hold.rules.map((r) => r.rule).join(', ')}`;
    }
    await em.flush();
    return emitCommissionUpdated({ ...deps, em }, programId, [c.id], decision);
  });
  deps.log.info({ programId, commissionId, decision }, 'held commission reviewed');
  return deliveryIds;
}

/** Releases a held commission and credits it. @throws AppError `not_found`, `invalid_request` (not held). */
export async function releaseHeldCommission(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
): Promise<ChangedCommission> {
  const released = await decide(deps, programId, commissionId, 'released');
  // A release that stopped here (a crash) leaves a pending commission the hold-period sweep
  // credits, and the decision's deliveries to the outbox sweeper.
  const c = await deps.em.findOneOrFail(Commission, { id: commissionId }, { refresh: true });
  if (c.creditedAt || c.status === 'reversed') return { commission: c, deliveryIds: released };
  // A step of its own, from what the decision committed (forkDeps).
  const approved = await approveCommission(forkDeps(deps), programId, commissionId);
  return { commission: approved.commission, deliveryIds: [...released, ...approved.deliveryIds] };
}

/** Rejects a held commission: reversed, never credited. @throws AppError `not_found`, `invalid_request` (not held). */
export async function rejectHeldCommission(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
): Promise<ChangedCommission> {
  const deliveryIds = await decide(deps, programId, commissionId, 'rejected');
  return { commission: await deps.em.findOneOrFail(Commission, { id: commissionId }, { refresh: true }), deliveryIds };
}
