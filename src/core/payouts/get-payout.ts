import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Commission } from '../entities/commission.ts';
import { Payout } from '../entities/payout.ts';
import type { PaidPayout } from './pay-payout.ts';

/** A payout with the commissions it paid (none while open). @throws AppError `not_found`. */
export async function getPayout(deps: CoreDeps, programId: number, payoutId: number): Promise<PaidPayout> {
  const em = deps.em;
  const payout = await em.findOne(Payout, { id: payoutId, program: programId });
  if (!payout) throw new AppError('not_found', 'No such payout in this program');
  const commissions = await em.find(Commission, { payout: payoutId }, { orderBy: { creditedAt: 'asc', id: 'asc' } });
  return { payout, commissions };
}
