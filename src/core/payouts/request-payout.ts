import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { Program } from '../entities/program.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { DEFAULT_PAYOUT_SETTINGS, type PayoutSettings } from '../entities/payout-settings.ts';
import { openPayout } from './open-payout.ts';
import { minimumOf } from './payout-runs.ts';

/** Whether the partner's program takes payout requests, and its minimum per currency (minor units). */
export async function payoutRequestTerms(
  deps: CoreDeps,
  partnerId: number,
): Promise<{ programId: number; settings: PayoutSettings; allowed: boolean }> {
  const partner = await deps.em.findOne(Partner, { id: partnerId });
  if (!partner) throw new AppError('not_found', 'No such partner');
  const program = await deps.em.findOneOrFail(Program, { id: partner.program });
  const settings = program.payoutSettings ?? DEFAULT_PAYOUT_SETTINGS;
  return { programId: program.id, settings, allowed: settings.partner_requests === true };
}

/**
 * A partner asks to be paid: an open payout of `amountCents` (null: everything available), when
 * the program allows requests (`payout_settings.partner_requests`), of at least its minimum, one
 * open request per currency at a time. The merchant sees it among the payouts (`open`); the next
 * payout run pays it through the run's rail, with everything due then (payout-runs.ts), or the
 * merchant pays it by hand (`payPayout`: whole commissions up to its amount).
 * @throws AppError `forbidden` (requests off), `invalid_request` (an open request already, nothing
 * available, more than available, below the minimum).
 */
export async function requestPayout(
  deps: CoreDeps,
  partnerId: number,
  currency: string,
  amountCents: number | null,
): Promise<{ payout: IPayout; deliveryIds: number[] }> {
  const { programId, settings, allowed } = await payoutRequestTerms(deps, partnerId);
  if (!allowed) throw new AppError('forbidden', 'This program does not take payout requests');
  const open = await deps.em.count(Payout, { partner: partnerId, currency, status: 'open' });
  if (open) throw new AppError('invalid_request', `You already have an open payout request in ${currency}`);
  const result = await openPayout(deps, programId, partnerId, currency, amountCents, minimumOf(settings, currency));
  deps.log.info({ programId, partnerId, payoutId: result.payout.id, currency }, 'partner requested a payout');
  return result;
}
