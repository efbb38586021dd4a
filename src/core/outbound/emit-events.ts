import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreDeps } from '../deps.ts';
import { EventEndpoint } from '../entities/event-endpoint.ts';
import { typedSql } from '../db/sql.ts';
import { outboundEventSchema } from './event-schemas.ts';
import type { OutboundEvent } from './event-types.ts';
import type { OutboundEventType } from '../shared/vocabulary.ts';
import type { EndpointSubscription } from '../ports.ts';

/**
 * The program's active endpoints (enabled, not disabled after failures), read at most once per
 * `SETTINGS_CACHE_MS` per process like the program's settings: a program without endpoints costs
 * its hot paths (sales) no query and no transaction. The admin routes clear the entry in their
 * process; another process sees a change within the cache's lifetime.
 */
export async function findSubscriptions(
  deps: Pick<CoreDeps, 'em' | 'caches'>,
  programId: number,
): Promise<readonly EndpointSubscription[]> {
  const hit = deps.caches.eventEndpoints.get(programId);
  if (hit) return hit;
  const rows = await deps.em.find(
    EventEndpoint,
    { program: programId, enabled: true, disabledAt: null },
    { fields: ['id', 'eventTypes'], orderBy: { id: 'asc' }, disableIdentityMap: true },
  );
  const subs = Object.freeze(rows.map((r) => Object.freeze({ id: r.id, types: r.eventTypes ?? null })));
  deps.caches.eventEndpoints.set(programId, subs);
  return subs;
}

const takes = (s: EndpointSubscription, type: OutboundEventType) => s.types === null || s.types.includes(type);

/** Whether any active endpoint of the program takes one of these types (decides whether a sale runs in a transaction). */
export async function wantsEvents(
  deps: Pick<CoreDeps, 'em' | 'caches'>,
  programId: number,
  types: readonly OutboundEventType[],
): Promise<boolean> {
  const subs = await findSubscriptions(deps, programId);
  return subs.some((s) => types.some((t) => takes(s, t)));
}

/**
 * The exact JSON text of an event as sent: `{type, timestamp, data}` (docs/outbound-events.md,
 * Payloads), checked against its type's schema first (event-schemas.ts). The text is the event as
 * built, not the parsed copy, so the schema decides nothing about the bytes sent.
 * @throws Error naming the type and what does not match: a builder that drifted from the contract.
 */
export function eventPayload(e: OutboundEvent, at: Date): string {
  const body = { type: e.type, timestamp: at.toISOString(), data: e.data };
  const checked = outboundEventSchema.safeParse(body);
  if (!checked.success)
    throw new Error(`outbound event ${e.type} does not match its schema: ${z.prettifyError(checked.error)}`, {
      cause: checked.error,
    });
  return JSON.stringify(body);
}

/**
 * Writes the outbox rows of these events: one delivery per event and subscribed endpoint, in the
 * caller's transaction (`deps.em` must be it), all in one statement; nothing when no endpoint
 * takes them. Each event gets one id (`evt_…`, the `webhook-id` of every attempt to every
 * endpoint) and its payload text is fixed here, so every attempt signs the same bytes. Returns the
 * new delivery ids, which travel back in the use-case's result (`deliveryIds`) for its caller to
 * enqueue once the transaction committed; ids never enqueued wait for the outbox sweeper.
 */
export async function emitEvents(
  deps: CoreDeps,
  programId: number,
  events: readonly OutboundEvent[],
): Promise<number[]> {
  if (!events.length) return [];
  const subs = await findSubscriptions(deps, programId);
  if (!subs.length) return [];
  const at = deps.clock();
  const rows = events.flatMap((e) => {
    const targets = subs.filter((s) => takes(s, e.type));
    if (!targets.length) return [];
    const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
    const payload = eventPayload(e, at);
    return targets.map((s) => ({
      program_id: programId,
      endpoint_id: s.id,
      event_id: eventId,
      type: e.type,
      payload,
      status: 'pending' as const,
      attempts: 0,
      sweeps: 0,
      created_at: at,
    }));
  });
  if (!rows.length) return [];
  const ids = await typedSql(deps.em).insertInto('event_delivery').values(rows).returning('id').execute();
  deps.log.debug(
    { programId, types: [...new Set(rows.map((r) => r.type))], deliveries: ids.length },
    'outbound events written',
  );
  return ids.map((r) => r.id);
}
