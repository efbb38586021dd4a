import {
  OUTBOUND_EVENT_HEADERS,
  OUTBOUND_EVENT_SCHEMAS,
  OUTBOUND_EVENT_DESCRIPTIONS,
} from '../../core/outbound/event-schemas.ts';
import { OUTBOUND_EVENT_TYPES, type OutboundEventType } from '../../core/shared/vocabulary.ts';
import { jsonSchema, type Json } from './json-schema.ts';

/*
 * The OpenAPI `webhooks` of the document: the events this service sends to a merchant's endpoints
 * (docs/outbound-events.md), one entry per type, each the POST its endpoint receives: the
 * Standard Webhooks headers and the body's schema (core/outbound/event-schemas.ts).
 */

export const OUTBOUND_EVENTS_TAG = {
  name: 'Outbound events',
  description:
    "Signed webhooks this service sends to a program's own endpoints (Standard Webhooks): every subscribed type arrives at the endpoint's one URL, told apart by `type`; verify the signature over the raw body, deduplicate on `webhook-id`.",
};

/** `sale.created` → `outboundSaleCreated`. */
const operationId = (type: OutboundEventType) =>
  `outbound${type
    .split('.')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}`;

const headers = Object.entries(OUTBOUND_EVENT_HEADERS).map(([name, schema]) => {
  const { description, ...rest } = jsonSchema(schema, 'output');
  return { name, in: 'header', required: true, description, schema: rest };
});

function webhook(type: OutboundEventType): Json {
  return {
    post: {
      operationId: operationId(type),
      summary: `\`${type}\``,
      description: OUTBOUND_EVENT_DESCRIPTIONS[type],
      tags: [OUTBOUND_EVENTS_TAG.name],
      security: [{}],
      parameters: headers,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchema(OUTBOUND_EVENT_SCHEMAS[type], 'output') } },
      },
      responses: {
        '2XX': { description: 'Received: the delivery is done (only the first 256 bytes of the answer are kept)' },
        default: {
          description:
            'Any other status (a redirect too), a network error or no answer within `EVENT_TIMEOUT_MS`: a failed attempt, retried with backoff',
        },
      },
    },
  };
}

/** One webhook per outbound event type, named by the type. */
export function outboundWebhooks(): Record<OutboundEventType, Json> {
  return Object.fromEntries(OUTBOUND_EVENT_TYPES.map((t) => [t, webhook(t)])) as Record<OutboundEventType, Json>;
}
