import { forkDeps, type CoreDeps } from '../deps.ts';
import { AppError, type ErrorCode } from '../shared/errors.ts';
import { Commission, type ICommission } from '../entities/commission.ts';
import { approveCommission, type ChangedCommission } from './approve-commission.ts';
import { rejectHeldCommission, releaseHeldCommission } from './review-held-commission.ts';

/** What the merchant decided for a set of commissions: approve (release a held one) or reject (final). */
export type ReviewAction = 'approve' | 'reject';

/** Each commission's own result: changed, or why not (the error the single action would answer). */
export type ReviewResult =
  | { commissionId: number; ok: true; commission: ICommission }
  | { commissionId: number; ok: false; code: ErrorCode; message: string };

/**
 * Approves or rejects many commissions of one program in one call, each exactly as its single
 * action does and in its own transaction, so one refusal leaves the others decided. `approve`
 * releases a commission held by fraud rules (review-held-commission.ts) and approves any other
 * (approve-commission.ts); `reject` rejects a held one (reversed, never credited) and refuses the
 * rest. A commission of another program is `not_found`, as it is to the single action.
 */
export async function reviewCommissions(
  deps: CoreDeps,
  programId: number,
  action: ReviewAction,
  commissionIds: readonly number[],
): Promise<{ results: ReviewResult[]; deliveryIds: number[] }> {
  const ids = [...new Set(commissionIds)];
  const held = new Set(
    (
      await deps.em.find(
        Commission,
        { id: { $in: ids }, program: programId, heldForReview: true, hold: { $ne: null } },
        { fields: ['id'], disableIdentityMap: true },
      )
    ).map((c) => c.id),
  );
  const results: ReviewResult[] = [];
  const deliveryIds: number[] = [];
  for (const id of ids) {
    const use: (d: CoreDeps, p: number, c: number) => Promise<ChangedCommission> =
      action === 'reject' ? rejectHeldCommission : held.has(id) ? releaseHeldCommission : approveCommission;
    try {
      // A unit of work per decision (forkDeps): each commits alone, none copies in the ones before.
      const changed = await use(forkDeps(deps), programId, id);
      deliveryIds.push(...changed.deliveryIds);
      results.push({ commissionId: id, ok: true, commission: changed.commission });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      results.push({ commissionId: id, ok: false, code: err.code, message: err.message });
    }
  }
  deps.log.info(
    { programId, action, decided: results.filter((r) => r.ok).length, refused: results.filter((r) => !r.ok).length },
    'commissions reviewed together',
  );
  return { results, deliveryIds };
}
