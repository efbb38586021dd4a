import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { emitPayoutCreated } from '../outbound/use-case-events.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { lockBalance } from '../ledger/ledger.ts';
import { formatMoney } from '../shared/money.ts';

/**
 * Opens a payout request (what used to be a withdrawal), with its `payout.created` deliveries. Its `amountCents` is the most it will
 * pay: the amount asked for, or by default everything available. Open payouts together must fit
 * in the balance; the balance itself only falls when a payout is paid (`payPayout`).
 * @throws AppError `not_found` (partner), `invalid_request` (nothing available, the amount does not
 * fit, or it is below `minimumCents`).
 */
export async function openPayout(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  currency: string,
  amountCents: number | null,
  /** A partner's own request must reach the program's minimum payout (request-payout.ts). */
  minimumCents = 0,
): Promise<{ payout: IPayout; deliveryIds: number[] }> {
  return deps.em.transactional(async (em) => {
    const partner = await em.findOne(Partner, { id: partnerId, program: programId });
    if (!partner) throw new AppError('not_found', 'No such partner in this program');
    // Under the balance's lock; sums in SQL (a balance may exceed 2^53 cents).
    const { balanceCents: balance, openPayoutsCents } = await lockBalance(em, partnerId, currency);
    const free = (balance > 0n ? balance : 0n) - openPayoutsCents;
    // One payout is at most 2^53 - 1 cents (an exact JSON number); a larger balance takes several.
    const available = Number(free > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : free);
    const cap = amountCents ?? available;
    if (cap <= 0 || cap > available) {
      throw new AppError('invalid_request', `Amount exceeds the available balance (${available})`, {
        field: 'amount_cents',
        available_cents: available,
      });
    }
    if (cap < minimumCents)
      throw new AppError(
        'invalid_request',
        `Below the minimum payout (${formatMoney(cap, currency)} < ${formatMoney(minimumCents, currency)})`,
        {
          field: 'amount_cents',
          available_cents: available,
          minimum_cents: minimumCents,
        },
      );
    const payout = em.create(Payout, {
      program: programId,
      partner: partnerId,
      currency,
      status: 'open',
      requestedCents: amountCents,
      amountCents: cap,
      commissionsCents: 0,
      nettedCents: 0,
      createdAt: deps.clock(),
      paidAt: null,
      run: null,
      rail: null,
      externalId: null,
      failedAt: null,
      failureReason: null,
    });
    await em.flush();
    return { payout, deliveryIds: await emitPayoutCreated({ ...deps, em }, payout) };
  });
}

/**
 * Cancels an open payout; nothing else changes.
 * @throws AppError `not_found`, `invalid_request` (not open).
 */
export async function cancelPayout(deps: CoreDeps, programId: number, payoutId: number): Promise<IPayout> {
  return deps.em.transactional(async (em) => {
    const payout = await em.findOne(
      Payout,
      { id: payoutId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payout) throw new AppError('not_found', 'No such payout in this program');
    if (payout.status !== 'open') throw new AppError('invalid_request', `Payout is ${payout.status}`);
    payout.status = 'cancelled';
    await em.flush();
    return payout;
  });
}
