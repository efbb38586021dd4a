/**
 * The end of a run's payout: the merchant confirms it `paid` (the rail paid it), or it `failed`
 * (the rail refused it, or Stripe reversed the transfer): the balance gets its amount back and its
 * commissions are payable again, in one transaction through the ledger.
 */
import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Commission } from '../entities/commission.ts';
import { Payout, type IPayout } from '../entities/payout.ts';
import { Notification } from '../entities/notification.ts';
import { posting, postToLedger } from '../ledger/ledger.ts';
import { emitPayoutFailed, emitPayoutPaid } from '../outbound/use-case-events.ts';
import type { SettledPayout } from './pay-payout.ts';

async function commissionsOf(deps: CoreDeps, payoutId: number) {
  return deps.em.find(Commission, { payout: payoutId }, { orderBy: { id: 'asc' } });
}

/**
 * Marks a processing payout paid (`externalId`: the rail's id of the payment, when it gives one).
 * @throws AppError `not_found`, `invalid_request` (not processing).
 */
export async function confirmPayout(
  deps: CoreDeps,
  programId: number,
  payoutId: number,
  externalId: string | null = null,
): Promise<SettledPayout> {
  return deps.em.transactional(async (em) => {
    const d = { ...deps, em };
    const payout = await em.findOne(
      Payout,
      { id: payoutId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payout) throw new AppError('not_found', 'No such payout in this program');
    if (payout.status !== 'processing')
      throw new AppError('invalid_request', `Payout is ${payout.status}, not processing`);
    payout.status = 'paid';
    payout.paidAt = deps.clock();
    if (externalId) payout.externalId = externalId;
    await em.flush();
    const commissions = await commissionsOf(d, payoutId);
    const deliveryIds = await emitPayoutPaid(
      d,
      payout,
      commissions.map((c) => c.id),
    );
    return { payout, commissions, deliveryIds };
  });
}

/**
 * Confirms every processing payout of a run, each in its own transaction. When one fails, the
 * deliveries of those confirmed before it are left to the outbox sweeper.
 * @throws AppError `not_found`.
 */
export async function confirmPayoutRun(
  deps: CoreDeps,
  programId: number,
  runId: number,
): Promise<{ payouts: IPayout[]; deliveryIds: number[] }> {
  const processing = await deps.em.find(
    Payout,
    { run: runId, program: programId, status: 'processing' },
    { orderBy: { id: 'asc' }, fields: ['id'] },
  );
  const payouts: IPayout[] = [];
  const deliveryIds: number[] = [];
  for (const p of processing) {
    const paid = await confirmPayout(deps, programId, p.id);
    payouts.push(paid.payout);
    deliveryIds.push(...paid.deliveryIds);
  }
  return { payouts, deliveryIds };
}

/**
 * Fails a processing payout, or a paid one whose rail took the money back (a reversed Stripe
 * transfer): the balance rises by the amount it had lowered (ledger `payout_failed`), and its
 * commissions are unpaid again (`paid` ones back to `approved`; refunded or reversed ones keep
 * their status), for a later payout; the partner gets a `partner_payout_failed` notification with
 * the reason. Failing a failed payout changes nothing.
 * @throws AppError `not_found`, `invalid_request` (open or cancelled).
 */
export async function failPayout(
  deps: CoreDeps,
  programId: number,
  payoutId: number,
  reason: string,
): Promise<SettledPayout & { changed: boolean }> {
  return deps.em.transactional(async (em) => {
    const d = { ...deps, em };
    // Lock order shared with refunds and approvals: commission rows, then the balance, then payouts.
    const commissions = await em.find(
      Commission,
      { payout: payoutId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
    );
    const payout = await em.findOne(
      Payout,
      { id: payoutId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payout) throw new AppError('not_found', 'No such payout in this program');
    if (payout.status === 'failed') return { payout, commissions, changed: false, deliveryIds: [] };
    if (payout.status !== 'processing' && payout.status !== 'paid')
      throw new AppError('invalid_request', `Payout is ${payout.status}: only a processing or paid payout can fail`);
    const now = deps.clock();
    for (const c of commissions) {
      c.paidAt = null;
      c.payout = null;
      if (c.status === 'paid') c.status = 'approved';
    }
    Object.assign(payout, { status: 'failed', failedAt: now, failureReason: reason.slice(0, 255) });
    // The partner hears of it with the reason (in-app, delivered after commit by the outbox).
    em.create(Notification, {
      program: programId,
      kind: 'partner_payout_failed',
      partnerId: payout.partner,
      commissionId: null,
      payload: {
        payout_id: payout.id,
        currency: payout.currency,
        amount_cents: payout.amountCents,
        failure_reason: payout.failureReason,
      },
      createdAt: now,
    });
    await em.flush();
    await postToLedger(
      em,
      posting({
        partnerId: payout.partner,
        currency: payout.currency,
        deltaCents: payout.amountCents,
        kind: 'payout_failed',
        payoutId: payout.id,
        at: now,
      }),
    );
    const ids = commissions.map((c) => c.id);
    const deliveryIds = await emitPayoutFailed(d, payout, ids);
    deps.log.warn(
      { programId, payoutId, partnerId: payout.partner, reason },
      'payout failed: its amount is back in the balance',
    );
    return { payout, commissions, changed: true, deliveryIds };
  });
}
