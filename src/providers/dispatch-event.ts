import type { NormalisedEvent } from '../core/jobs/normalised-event.ts';
import type { EventContext, EventHandler } from './adapter.ts';
import { asRecord, sanitiseKey } from './read-payload.ts';

export type DispatchInput = {
  /** The provider's dispatch table: its keys are exactly the handled event types. */
  handlers: Readonly<Record<string, EventHandler>>;
  eventType: string | null;
  dedupeKey: string;
  /** The event's object (`data.object` for Stripe, `data` for Paddle and Lemon Squeezy). */
  object: unknown;
  ctx: EventContext;
};

/** Runs the handler registered for the event type; unknown types are ignored, not errors. */
export function dispatchEvent(input: DispatchInput): NormalisedEvent {
  const eventType = input.eventType ?? 'unknown';
  const dedupeKey = sanitiseKey(input.dedupeKey);
  const handler = Object.hasOwn(input.handlers, eventType) ? input.handlers[eventType] : undefined;
  if (!handler) return { dedupeKey, eventType, jobs: [], ignoredReason: 'unhandled_event_type' };
  const object = asRecord(input.object);
  if (!object) return { dedupeKey, eventType, jobs: [], ignoredReason: 'missing_event_object' };
  return { dedupeKey, eventType, ...handler(object, input.ctx) };
}
