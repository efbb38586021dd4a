import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

export type NotificationKind =
  | 'partner_commission_refunded'
  | 'partner_payout_failed'
  | 'advertiser_manual_review'
  | 'advertiser_unattributed_payment'
  | 'advertiser_attribution_conflict'
  | 'advertiser_event_endpoint_disabled';

/**
 * An in-app notification. Written in the same transaction as its cause (an outbox), delivered
 * after commit by the notify job; `deliveredAt` is set once the sender accepted it.
 */
export const Notification = defineEntity({
  name: 'Notification',
  indexes: [{ properties: ['deliveredAt'] }, { properties: ['partnerId', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    kind: p.string().$type<NotificationKind>(),
    partnerId: p.integer().nullable(),
    commissionId: p.integer().nullable(),
    payload: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
    /** Set when the partner marked it read in the portal. */
    readAt: p.datetime().nullable(),
    /** Times the outbox sweeper re-enqueued it under a fresh job id (part of that id). */
    sweeps: p.integer().default(0),
    /** Last re-enqueue by the sweeper; the next one waits a full retry horizon after it. */
    sweptAt: p.datetime().nullable(),
  },
});
export type INotification = InferEntity<typeof Notification>;
