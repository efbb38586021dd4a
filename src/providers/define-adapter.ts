/**
 * The scaffolding every provider adapter shares: the dispatch table (its keys are the handled
 * event types), the event context built from the verified envelope, and the routing of the event's
 * object to its handler. A provider file supplies only what differs: how its signature is checked
 * and where its envelope keeps the event type, id, object, time and test flag.
 */
import type { NormalisedEvent } from '../core/jobs/normalised-event.ts';
import type { WebhookProvider } from '../core/shared/vocabulary.ts';
import type { EventHandler, NormaliseContext, ProviderAdapter } from './adapter.ts';
import { asRecord, computeContentKey, sanitiseKey } from './read-payload.ts';

/** What a provider reads from its envelope. */
export type EnvelopeFields = {
  eventType: string | null;
  /** The provider's event id or a key built from the payload; `null`: a digest of the JSON. */
  dedupeKey: string | null;
  /** The event's object (`data.object` for Stripe, `data` for Paddle and Lemon Squeezy...). */
  object: unknown;
  /** The payload's own test flag; events of a test connection are test events whatever it says. */
  test?: boolean;
  /** The provider's own event time, ISO. */
  occurredAt: string | null;
  /** Metadata carried on the envelope rather than the object (Lemon Squeezy `meta.custom_data`). */
  envelopeMetadata?: unknown;
};

export type AdapterDefinition = {
  name: WebhookProvider;
  /** The dispatch table: one handler per handled event type; any other is `unhandled_event_type`. */
  handlers: Readonly<Record<string, EventHandler>>;
  verify: ProviderAdapter['verify'];
  /** Never throws: a missing field is `null`. */
  readEnvelope(event: unknown): EnvelopeFields;
};

export function defineProviderAdapter(definition: AdapterDefinition): ProviderAdapter {
  const { name, handlers, verify, readEnvelope } = definition;
  return {
    name,
    eventTypes: Object.keys(handlers),
    verify,
    normalise: (event: unknown, ctx: NormaliseContext): NormalisedEvent => {
      const fields = readEnvelope(event);
      const eventType = fields.eventType ?? 'unknown';
      const dedupeKey = sanitiseKey(fields.dedupeKey ?? computeContentKey(event));
      // Unknown types are ignored, not errors.
      const handler = Object.hasOwn(handlers, eventType) ? handlers[eventType] : undefined;
      if (!handler) return { dedupeKey, eventType, jobs: [], ignoredReason: 'unhandled_event_type' };
      const object = asRecord(fields.object);
      if (!object) return { dedupeKey, eventType, jobs: [], ignoredReason: 'missing_event_object' };
      const outcome = handler(object, {
        provider: name,
        programId: ctx.programId,
        receivedAt: ctx.receivedAt,
        test: ctx.testConnection === true || fields.test === true,
        occurredAt: fields.occurredAt,
        envelopeMetadata: fields.envelopeMetadata ?? null,
      });
      return { dedupeKey, eventType, ...outcome };
    },
  };
}
