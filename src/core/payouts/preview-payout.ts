import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import type { PayoutPlan } from './compute-payout.ts';
import { planSettlement } from './pay-payout.ts';

/** What paying a partner everything payable in one currency would pay now, minor units; nothing written. */
export type PayoutPreview = PayoutPlan & { partnerId: number; currency: string; owedCents: number };

/**
 * The payout `payPayout` would make of everything payable (no cap), from the same reads and the same
 * plan (`computePayout`), in one read-only snapshot and without the payment's locks.
 * @throws AppError `not_found` (partner).
 */
export async function previewPayout(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  currency: string,
): Promise<PayoutPreview> {
  const partner = await deps.em.findOne(Partner, { id: partnerId, program: programId }, { fields: ['id'] });
  if (!partner) throw new AppError('not_found', 'No such partner in this program');
  const { owed, plan } = await deps.em.transactional(
    (em) => planSettlement(em, { programId, partnerId, currency, payoutId: null, commissionId: null }, false),
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  return { ...plan, partnerId, currency, owedCents: Math.max(0, owed) };
}
