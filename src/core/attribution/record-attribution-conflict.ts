import type { CoreDeps } from '../deps.ts';
import { AttributionConflict, type AttributionConflictKind } from '../entities/attribution-conflict.ts';
import { Notification } from '../entities/notification.ts';

/**
 * Records a conflict and the advertiser's notification in the caller's transaction (the outbox:
 * the notification sweeper delivers it after commit).
 */
export function recordAttributionConflict(
  deps: CoreDeps,
  input: {
    programId: number;
    kind: AttributionConflictKind;
    customerId: number | null;
    customerKey: string | null;
    boundClickId: string | null;
    otherClickId: string | null;
    saleId?: number | null;
    at: Date;
  },
): void {
  const em = deps.em;
  em.create(AttributionConflict, {
    program: input.programId,
    kind: input.kind,
    customerId: input.customerId,
    customerKey: input.customerKey,
    boundClickId: input.boundClickId,
    otherClickId: input.otherClickId,
    saleId: input.saleId ?? null,
    createdAt: input.at,
  });
  em.create(Notification, {
    program: input.programId,
    kind: 'advertiser_attribution_conflict',
    partnerId: null,
    commissionId: null,
    createdAt: input.at,
    payload: {
      conflict: input.kind,
      customer_id: input.customerId,
      customer_key: input.customerKey,
      bound_click_id: input.boundClickId,
      other_click_id: input.otherClickId,
      sale_id: input.saleId ?? null,
    },
  });
}
