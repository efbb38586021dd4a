import { LockMode } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { emitCommissionUpdated } from '../outbound/use-case-events.ts';
import { AppError } from '../shared/errors.ts';
import { Commission, type ICommission } from '../entities/commission.ts';
import { Notification } from '../entities/notification.ts';
import { posting, postToLedger } from '../ledger/ledger.ts';

export type LeadReversal =
  | {
      kind: 'applied';
      commission: ICommission;
      deductionCents: number;
      balanceDeductionCents: number;
      deliveryIds: number[];
    }
  | { kind: 'skipped'; commission: ICommission; reason: string; deliveryIds: number[] };

/**
 * What a reversal of `requestedCents` takes from a lead commission: never more than remains; omitted
 * or 0 takes all of it. `reversed` once nothing remains, else `refunded`.
 */
export function planLeadReversal(
  c: { amountCents: number; reversedCents: number },
  requestedCents: number | null | undefined,
): { deductionCents: number; status: 'refunded' | 'reversed' } {
  const remaining = c.amountCents - c.reversedCents;
  const deductionCents = requestedCents ? Math.min(requestedCents, remaining) : remaining;
  return { deductionCents, status: c.reversedCents + deductionCents >= c.amountCents ? 'reversed' : 'refunded' };
}

/**
 * A reward per lead has no sale to refund, so the merchant takes it back here (the signup was fake,
 * the trial never started). The refund rules of a sale's commission, on the commission itself:
 * `amountCents` omitted (or at least what remains) reverses it whole (`reversed`), less reduces it
 * (`refunded`); a credited one is deducted from the partner balance in the same transaction
 * (ledger.ts), and the partner (and, when it was paid out, the advertiser) is notified through the
 * outbox, delivered by the next outbox sweep. A reversed commission is `skipped`.
 * @throws AppError `not_found` (not in this program), `invalid_request` (a commission on a sale:
 * refund the sale).
 */
export async function reverseLeadCommission(
  deps: CoreDeps,
  programId: number,
  commissionId: number,
  input: { amountCents?: number | null; reason?: string | null },
): Promise<LeadReversal> {
  const result = await deps.em.transactional(async (em): Promise<LeadReversal> => {
    const c = await em.findOne(
      Commission,
      { id: commissionId, program: programId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!c) throw new AppError('not_found', 'No such commission in this program');
    if (!c.leadCustomer)
      throw new AppError(
        'invalid_request',
        'This commission is on a sale: refund the sale (POST /api/v1/track/refund) to reduce it',
        { commission_id: c.id, sale_id: c.sale },
      );
    if (c.status === 'reversed')
      return { kind: 'skipped', commission: c, reason: 'Commission already reversed', deliveryIds: [] };
    const plan = planLeadReversal(c, input.amountCents);
    const deduction = plan.deductionCents;
    const now = deps.clock();
    c.reversedCents += deduction;
    c.status = plan.status;
    c.reason = input.reason?.trim() || 'lead reversed';
    const balanceDeduction = c.creditedAt ? deduction : 0;
    const payload = {
      commission_id: c.id,
      customer_id: c.leadCustomer,
      status: c.status,
      deduction_cents: deduction,
      currency: c.currency,
      refund_reason: c.reason,
    };
    const note = (kind: 'partner_commission_refunded' | 'advertiser_manual_review', extra = {}) =>
      em.create(Notification, {
        program: programId,
        kind,
        partnerId: c.partner,
        commissionId: c.id,
        payload: { ...payload, ...extra },
        createdAt: now,
      });
    note('partner_commission_refunded');
    if (c.paidAt) note('advertiser_manual_review', { paid_at: c.paidAt.toISOString(), payout_id: c.payout ?? null });
    await em.flush();
    if (balanceDeduction > 0)
      await postToLedger(
        em,
        posting({
          partnerId: c.partner,
          currency: c.currency,
          deltaCents: -balanceDeduction,
          kind: 'refund_deduction',
          commissionId: c.id,
          at: now,
        }),
      );
    const change = c.status === 'reversed' ? 'reversed' : 'refunded';
    const deliveryIds = await emitCommissionUpdated({ ...deps, em }, programId, [c.id], change);
    return {
      kind: 'applied',
      commission: c,
      deductionCents: deduction,
      balanceDeductionCents: balanceDeduction,
      deliveryIds,
    };
  });
  deps.log.info(
    {
      programId,
      commissionId,
      outcome: result.kind,
      ...(result.kind === 'applied' ? { deductionCents: result.deductionCents } : {}),
    },
    'lead commission reversal',
  );
  return result;
}
