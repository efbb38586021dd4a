import type { CoreDeps } from '../deps.ts';
import type { SaleJob } from '../jobs/sale-job.ts';
import { Commission } from '../entities/commission.ts';
import type { IPartner } from '../entities/partner.ts';
import type { IPayout } from '../entities/payout.ts';
import {
  commissionCreated,
  commissionFacts,
  commissionUpdated,
  leadCreated,
  partnerCreated,
  payoutCreated,
  payoutFailed,
  payoutPaid,
  saleCreated,
  type CommissionUpdateExtra,
} from './event-data.ts';
import type { CommissionChange, OutboundEvent } from './event-types.ts';
import { emitEvents, wantsEvents } from './emit-events.ts';

/*
 * The use-cases' side of outbound events: each is called inside the use-case's transaction
 * (`deps.em` is it) and costs nothing beyond the cached subscription check when no endpoint of
 * the program takes the event. Each returns the delivery ids it wrote (emit-events.ts), for the
 * use-case to return as its `deliveryIds`.
 */

/** `sale.created` and, with its commission, `commission.created` (record-sale.ts, inside its transaction). */
export async function emitSaleEvents(
  deps: CoreDeps,
  programId: number,
  job: SaleJob,
  attribution: { customerId: number | null; partnerId: number; clickId: string | null },
  s: {
    saleId: number;
    commission: { id: number; amountCents: number; held: boolean } | null;
    amountCents: number;
    currency: string;
    now: Date;
  },
): Promise<number[]> {
  const events: OutboundEvent[] = [
    saleCreated({
      id: s.saleId,
      transactionId: job.transactionId ?? '',
      amountCents: s.amountCents,
      currency: s.currency,
      customerId: attribution.customerId,
      partnerId: attribution.partnerId,
      clickId: attribution.clickId,
      productId: job.productId ?? null,
      provider: job.provider ?? null,
      isRecurring: job.isRecurring,
      occurredAt: job.occurredAt ? new Date(job.occurredAt) : null,
      receivedAt: s.now,
    }),
  ];
  if (s.commission)
    events.push(
      commissionCreated({
        id: s.commission.id,
        saleId: s.saleId,
        leadCustomerId: null,
        partnerId: attribution.partnerId,
        amountCents: s.commission.amountCents,
        reversedCents: 0,
        currency: s.currency,
        status: 'pending',
        heldForReview: s.commission.held,
      }),
    );
  return emitEvents(deps, programId, events);
}

/** `lead.created` for a customer bound for the first time, and the reward per lead's `commission.created`. */
export async function emitLeadEvents(
  deps: CoreDeps,
  programId: number,
  lead: Parameters<typeof leadCreated>[0] | null,
  commissionId: number | null,
): Promise<number[]> {
  if ((!lead && !commissionId) || !(await wantsEvents(deps, programId, ['lead.created', 'commission.created'])))
    return [];
  const events: OutboundEvent[] = lead ? [leadCreated(lead)] : [];
  if (commissionId) {
    const c = await deps.em.findOneOrFail(Commission, { id: commissionId });
    events.push(commissionCreated(commissionFacts(c)));
  }
  return emitEvents(deps, programId, events);
}

/** `commission.updated` for each commission, read as its transaction now sees it. */
export async function emitCommissionUpdated(
  deps: CoreDeps,
  programId: number,
  commissionIds: readonly number[],
  change: CommissionChange,
  extra: CommissionUpdateExtra = {},
): Promise<number[]> {
  if (!commissionIds.length || !(await wantsEvents(deps, programId, ['commission.updated']))) return [];
  const rows = await deps.em.find(
    Commission,
    { id: { $in: [...commissionIds] }, program: programId },
    { orderBy: { id: 'asc' }, disableIdentityMap: true },
  );
  return emitEvents(
    deps,
    programId,
    rows.map((c) => commissionUpdated(commissionFacts(c), change, extra)),
  );
}

export async function emitPayoutCreated(deps: CoreDeps, payout: IPayout): Promise<number[]> {
  return emitEvents(deps, payout.program, [payoutCreated(payout)]);
}

/** `payout.paid` and `commission.updated` (`paid`) for each commission it paid. */
export async function emitPayoutPaid(deps: CoreDeps, payout: IPayout, commissionIds: number[]): Promise<number[]> {
  const ids = await emitEvents(deps, payout.program, [payoutPaid(payout, commissionIds)]);
  return [
    ...ids,
    ...(await emitCommissionUpdated(deps, payout.program, commissionIds, 'paid', { payout_id: payout.id })),
  ];
}

/** `payout.failed` and `commission.updated` (`payout_failed`) for each commission it gave back. */
export async function emitPayoutFailed(deps: CoreDeps, payout: IPayout, commissionIds: number[]): Promise<number[]> {
  const ids = await emitEvents(deps, payout.program, [payoutFailed(payout, commissionIds)]);
  return [
    ...ids,
    ...(await emitCommissionUpdated(deps, payout.program, commissionIds, 'payout_failed', { payout_id: payout.id })),
  ];
}

export async function emitPartnerCreated(deps: CoreDeps, partner: IPartner): Promise<number[]> {
  return emitEvents(deps, partner.program, [partnerCreated(partner)]);
}
