import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Partner } from './entities/partner.ts';
import { PartnerBalance } from './entities/partner-balance.ts';
import { Withdrawal, type IWithdrawal } from './entities/withdrawal.ts';
import { adjustPartnerBalance } from './adjust-partner-balance.ts';

/**
 * Opens a payout request. Open withdrawals together must fit in the balance; the balance itself
 * only falls when the withdrawal is paid.
 * @throws AppError `not_found`, `invalid_request` (amount does not fit).
 */
export async function openWithdrawal(deps: CoreDeps, programId: number, partnerId: number, currency: string, amountCents: number): Promise<IWithdrawal> {
  return deps.em.fork().transactional(async (em) => {
    const partner = await em.findOne(Partner, { id: partnerId, program: programId });
    if (!partner) throw new AppError('not_found', 'No such partner in this program');
    const balance = await em.findOne(PartnerBalance, { partner: partnerId, currency }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const open = await em.find(Withdrawal, { partner: partnerId, currency, status: 'open' });
    const available = (balance?.balanceCents ?? 0) - open.reduce((s, w) => s + w.amountCents, 0);
    if (amountCents > available) throw new AppError('invalid_request', `Amount exceeds the available balance (${available})`, { available_cents: available });
    const w = em.create(Withdrawal, { partner: partnerId, currency, amountCents, requestedCents: amountCents, status: 'open', createdAt: deps.clock() });
    await em.flush();
    return w;
  });
}

/** Pays an open withdrawal: the balance falls by its (possibly reduced) amount. */
export async function markWithdrawalPaid(deps: CoreDeps, programId: number, withdrawalId: number): Promise<IWithdrawal> {
  return deps.em.fork().transactional(async (em) => {
    const w = await em.findOne(Withdrawal, { id: withdrawalId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const partner = w ? await em.findOne(Partner, { id: w.partner, program: programId }) : null;
    if (!w || !partner) throw new AppError('not_found', 'No such withdrawal in this program');
    if (w.status !== 'open') throw new AppError('invalid_request', `Withdrawal is ${w.status}`);
    w.status = 'paid';
    w.paidAt = deps.clock();
    await em.flush();
    await adjustPartnerBalance(em, { partnerId: w.partner, currency: w.currency, deltaCents: -w.amountCents, kind: 'withdrawal_paid', withdrawalId: w.id, at: w.paidAt });
    return w;
  });
}
