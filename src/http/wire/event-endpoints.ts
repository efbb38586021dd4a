import { z } from 'zod';
import { OUTBOUND_EVENT_TYPES } from '../../core/shared/vocabulary.ts';
import { EVENT_DELIVERY_STATUSES, type IEventDelivery } from '../../core/entities/event-delivery.ts';
import type { IEventEndpoint } from '../../core/entities/event-endpoint.ts';

/*
 * Outbound event endpoints and their deliveries on the wire (routes/admin-event-endpoints.ts):
 * the zod schemas the OpenAPI entries document and the mappers that write them. A secret appears
 * only in the answers that create one (`secret`), never in a listing.
 */

const int = z.number().int();
const time = z.iso.datetime();

export const eventTypesWire = z
  .array(z.enum(OUTBOUND_EVENT_TYPES))
  .min(1)
  .nullable()
  .meta({ description: 'The event types it receives; null: all of them (present and future)' });

export const endpointWire = z.strictObject({
  id: int,
  program_id: int,
  url: z.string(),
  event_types: eventTypesWire,
  enabled: z.boolean(),
  active: z.boolean().meta({ description: 'Receives events: enabled and not disabled after failures' }),
  rotating: z.boolean().meta({ description: 'An old secret still signs beside the new one (expire it to end)' }),
  consecutive_failures: int,
  disabled_at: time.nullable().meta({ description: 'When it was disabled after consecutive failures' }),
  created_at: time,
  updated_at: time,
});

export const deliveryWire = z.strictObject({
  id: int,
  endpoint_id: int,
  event_id: z.string().meta({ description: 'The `webhook-id` of every attempt' }),
  type: z.enum(OUTBOUND_EVENT_TYPES),
  status: z.enum(EVENT_DELIVERY_STATUSES),
  attempts: int,
  last_status_code: int.nullable(),
  last_response_excerpt: z.string().nullable().meta({
    description:
      'At most 256 bytes of the last answer, or the error (`refused: …` when the URL guard refused the destination)',
  }),
  last_attempt_at: time.nullable(),
  delivered_at: time.nullable(),
  created_at: time,
});

const secretWire = z.string().meta({ description: 'The `whsec_…` signing secret: shown this once, never again' });
export const endpointWithSecretBody = z.strictObject({ endpoint: endpointWire, secret: secretWire });
export type EndpointWithSecretBody = z.infer<typeof endpointWithSecretBody>;
export const endpointBody = z.strictObject({ endpoint: endpointWire });
export type EndpointBody = z.infer<typeof endpointBody>;
export const endpointsBody = z.strictObject({ endpoints: z.array(endpointWire) });
export type EndpointsBody = z.infer<typeof endpointsBody>;
export const deliveriesBody = z.strictObject({ deliveries: z.array(deliveryWire) });
export type DeliveriesBody = z.infer<typeof deliveriesBody>;
export const deliveryBody = z.strictObject({ delivery: deliveryWire });
export type DeliveryBody = z.infer<typeof deliveryBody>;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function endpointToWire(e: IEventEndpoint): z.infer<typeof endpointWire> {
  return {
    id: e.id,
    program_id: e.program,
    url: e.url,
    event_types: e.eventTypes ?? null,
    enabled: e.enabled,
    active: e.enabled && !e.disabledAt,
    rotating: Boolean(e.previousSecret),
    consecutive_failures: e.consecutiveFailures,
    disabled_at: iso(e.disabledAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function deliveryToWire(d: IEventDelivery): z.infer<typeof deliveryWire> {
  return {
    id: d.id,
    endpoint_id: d.endpoint,
    event_id: d.eventId,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode ?? null,
    last_response_excerpt: d.lastResponse ?? null,
    last_attempt_at: iso(d.lastAttemptAt),
    delivered_at: iso(d.deliveredAt),
    created_at: d.createdAt.toISOString(),
  };
}
