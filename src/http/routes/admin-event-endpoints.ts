import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import {
  createEventEndpoint,
  expireOldEventSecret,
  listEventEndpoints,
  rotateEventSecret,
  updateEventEndpoint,
} from '../../core/outbound/endpoints.ts';
import { listEventDeliveries, replayEventDelivery } from '../../core/outbound/event-outbox.ts';
import { EVENT_DELIVERY_STATUSES } from '../../core/entities/event-delivery.ts';
import { enqueueEventDeliveries } from '../../queue/enqueue-events.ts';
import { json } from '../route.ts';
import { rowId, validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import {
  deliveriesBody,
  deliveryBody,
  deliveryToWire,
  endpointBody,
  endpointsBody,
  endpointToWire,
  endpointWithSecretBody,
  type DeliveriesBody,
  type DeliveryBody,
  type EndpointBody,
  type EndpointsBody,
  type EndpointWithSecretBody,
} from '../wire/event-endpoints.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { endpointCreateSchema, endpointPatchSchema } from '../wire/requests.ts';

const deliveriesQuery = z.strictObject({
  status: z.enum(EVENT_DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.coerce.number().pipe(rowId).optional(),
});

const BASE = '/programs/:id/event-endpoints';

/**
 * Outbound event endpoints of a program (docs/outbound-events.md): create (the secret in the
 * answer, once), list, change, rotate and expire secrets, the deliveries of one endpoint, replay.
 */
export function registerEventEndpointRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', BASE, async (e) => {
    const b = validate(endpointCreateSchema, await body(e));
    const r = await createEventEndpoint(ctx.deps(), num(e, 'id'), {
      url: b.url,
      eventTypes: b.event_types,
      enabled: b.enabled,
    });
    return json({ endpoint: endpointToWire(r.endpoint), secret: r.secret } satisfies EndpointWithSecretBody, 201);
  });
  on('get', BASE, async (e) => {
    const list = await listEventEndpoints(ctx.deps(), num(e, 'id'));
    return { endpoints: list.map(endpointToWire) } satisfies EndpointsBody;
  });
  on(
    'patch',
    `${BASE}/:endpointId`,
    async (e) => {
      const b = validate(endpointPatchSchema, await body(e));
      const endpoint = await updateEventEndpoint(ctx.deps(), num(e, 'id'), num(e, 'endpointId'), {
        ...(b.url !== undefined ? { url: b.url } : {}),
        ...(b.event_types !== undefined ? { eventTypes: b.event_types } : {}),
        ...(b.enabled !== undefined ? { enabled: b.enabled } : {}),
      });
      return { endpoint: endpointToWire(endpoint) } satisfies EndpointBody;
    },
    async (e) => {
      const endpoint = (await listEventEndpoints(ctx.deps(), num(e, 'id'))).find((x) => x.id === num(e, 'endpointId'));
      return endpoint ? { endpoint: endpointToWire(endpoint) } : undefined;
    },
  );
  on('post', `${BASE}/:endpointId/rotate-secret`, async (e) => {
    const r = await rotateEventSecret(ctx.deps(), num(e, 'id'), num(e, 'endpointId'));
    return { endpoint: endpointToWire(r.endpoint), secret: r.secret } satisfies EndpointWithSecretBody;
  });
  on('post', `${BASE}/:endpointId/expire-old-secret`, async (e) => {
    const endpoint = await expireOldEventSecret(ctx.deps(), num(e, 'id'), num(e, 'endpointId'));
    return { endpoint: endpointToWire(endpoint) } satisfies EndpointBody;
  });
  on('get', `${BASE}/:endpointId/deliveries`, async (e) => {
    const q = validate(deliveriesQuery, Object.fromEntries(new URL(e.req.url).searchParams));
    const rows = await listEventDeliveries(ctx.deps(), num(e, 'id'), num(e, 'endpointId'), q);
    return { deliveries: rows.map(deliveryToWire) } satisfies DeliveriesBody;
  });
  on('post', '/programs/:id/event-deliveries/:deliveryId/replay', async (e) => {
    const r = await replayEventDelivery(ctx.deps(), num(e, 'id'), num(e, 'deliveryId'));
    await enqueueEventDeliveries(ctx, [{ id: r.delivery.id, sweep: r.sweep }]);
    return { delivery: deliveryToWire(r.delivery) } satisfies DeliveryBody;
  });
}

const id = z.number().int().positive();
const params = { id, endpointId: id };
const SEALED =
  'The signing secret is stored sealed (AES-256-GCM under DATA_ENCRYPTION_KEYS) and returned only in this answer. ' +
  'Production mode without DATA_ENCRYPTION_KEYS answers 400 invalid_request.';
const GUARDED =
  'The url must be https:// and its host a public address, or a name whose every address is public ' +
  '(plain http://, and private, loopback, link-local, shared or metadata addresses, only for hosts on ' +
  'OUTBOUND_ALLOW_HOSTS); otherwise 400 url_not_allowed with details.field url and details.reason. ' +
  'Every delivery checks again.';
export const eventEndpointOperations = [
  adminOperation('post', BASE, 'createEventEndpoint', 'Add an outbound event endpoint (its secret is shown once)', {
    description: `${GUARDED} ${SEALED}`,
    params: { id },
    body: endpointCreateSchema,
    errors: ['not_found', 'url_not_allowed'],
    responses: { 201: { description: 'The endpoint and its signing secret', schema: endpointWithSecretBody } },
  }),
  adminOperation('get', BASE, 'listEventEndpoints', "The program's outbound event endpoints (no secrets)", {
    params: { id },
    responses: { 200: { description: 'The endpoints', schema: endpointsBody } },
  }),
  adminOperation('patch', `${BASE}/:endpointId`, 'updateEventEndpoint', 'Change url, event types or enabled', {
    description: GUARDED,
    params,
    body: endpointPatchSchema,
    errors: ['not_found', 'url_not_allowed'],
    responses: { 200: { description: 'The endpoint', schema: endpointBody } },
  }),
  adminOperation(
    'post',
    `${BASE}/:endpointId/rotate-secret`,
    'rotateEventSecret',
    'Add a new signing secret; old and new both sign until the old one is expired',
    {
      description: SEALED,
      params,
      errors: ['not_found'],
      responses: {
        200: { description: 'The endpoint and its new secret (shown once)', schema: endpointWithSecretBody },
      },
    },
  ),
  adminOperation(
    'post',
    `${BASE}/:endpointId/expire-old-secret`,
    'expireOldEventSecret',
    'End a rotation: only the new secret signs',
    {
      params,
      errors: ['not_found'],
      responses: { 200: { description: 'The endpoint', schema: endpointBody } },
    },
  ),
  adminOperation(
    'get',
    `${BASE}/:endpointId/deliveries`,
    'listEventDeliveries',
    "An endpoint's deliveries, newest first",
    {
      params,
      query: deliveriesQuery,
      responses: { 200: { description: 'The deliveries', schema: deliveriesBody } },
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/event-deliveries/:deliveryId/replay',
    'replayEventDelivery',
    'Send a delivery again (same event id)',
    {
      params: { id, deliveryId: id },
      errors: ['not_found'],
      responses: { 200: { description: 'The delivery, pending again', schema: deliveryBody } },
    },
  ),
];
