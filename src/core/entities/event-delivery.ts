import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { EventEndpoint } from './event-endpoint.ts';
import type { OutboundEventType } from '../shared/vocabulary.ts';

export const EVENT_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type EventDeliveryStatus = (typeof EVENT_DELIVERY_STATUSES)[number];

/**
 * One outbound event for one endpoint: the outbox row, written in the transaction of the change it
 * describes, delivered after commit by the `outbound` queue. `eventId` (the Standard Webhooks
 * `webhook-id`) is the same on every attempt and for every endpoint of one event; `payload` is the
 * exact JSON text signed and sent each time.
 */
export const EventDelivery = defineEntity({
  name: 'EventDelivery',
  indexes: [{ properties: ['status', 'createdAt'] }, { properties: ['endpoint', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    endpoint: () => p.manyToOne(EventEndpoint).mapToPk(),
    eventId: p.string().length(40),
    type: p.string().$type<OutboundEventType>(),
    payload: p.text(),
    status: p.string().$type<EventDeliveryStatus>().default('pending'),
    attempts: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    /** The first 256 bytes of the last response body, the network error, or the URL guard's refusal. */
    lastResponse: p.text().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    /** Times it was re-enqueued (sweeper or replay) under a fresh job id (part of that id). */
    sweeps: p.integer().default(0),
    sweptAt: p.datetime().nullable(),
  },
});
export type IEventDelivery = InferEntity<typeof EventDelivery>;
