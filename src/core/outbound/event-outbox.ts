import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { EventDelivery, type IEventDelivery } from '../entities/event-delivery.ts';
import { typedSql } from '../db/sql.ts';

/** What the sweeper enqueues: `waiting` under the row's own job id, `stuck` under a fresh one. */
export type EventOutboxSweep = { waiting: number[]; stuck: Array<{ id: number; sweep: number }> };

/**
 * Pending deliveries for the outbox sweeper, as for notifications (deliver-notification.ts):
 * `waiting` were written before `enqueuedBefore` and never swept (their enqueue may have failed;
 * adding the same job id again is a no-op if it did not); `stuck` are still pending `stuckBefore`
 * after the later of their creation and last sweep or replay, i.e. their job was lost (a process
 * stopped with its retry waiting): claimed (`sweeps` + 1) and re-enqueued under a fresh id.
 */
export async function sweepEventOutbox(
  deps: CoreDeps,
  at: { enqueuedBefore: Date; stuckBefore: Date; now: Date },
  limit = 500,
): Promise<EventOutboxSweep> {
  const stuck = await typedSql(deps.em)
    .updateTable('event_delivery')
    .set((eb) => ({ sweeps: eb('sweeps', '+', 1), swept_at: at.now }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('event_delivery as d')
        .select('d.id')
        .where('d.status', '=', 'pending')
        .where((w) => w(w.fn.coalesce('d.swept_at', 'd.created_at'), '<=', at.stuckBefore))
        .orderBy('d.id')
        .limit(limit),
    )
    .returning(['id', 'sweeps'])
    .execute();
  const waiting = await deps.em.find(
    EventDelivery,
    { status: 'pending', sweptAt: null, createdAt: { $lte: at.enqueuedBefore } },
    { fields: ['id'], limit, orderBy: { id: 'asc' } },
  );
  return { waiting: waiting.map((r) => r.id), stuck: stuck.map((r) => ({ id: r.id, sweep: r.sweeps })) };
}

/**
 * Sends a delivery again (the admin's replay), whatever its state: back to `pending`, claimed
 * under a new sweep number so its job id is fresh. The event id, and so the `webhook-id`, stays.
 * @throws AppError `not_found` (not a delivery of this program).
 */
export async function replayEventDelivery(
  deps: CoreDeps,
  programId: number,
  deliveryId: number,
): Promise<{ delivery: IEventDelivery; sweep: number }> {
  const row = await typedSql(deps.em)
    .updateTable('event_delivery')
    .set((eb) => ({ status: 'pending', delivered_at: null, sweeps: eb('sweeps', '+', 1), swept_at: deps.clock() }))
    .where('id', '=', deliveryId)
    .where('program_id', '=', programId)
    .returning(['id', 'sweeps'])
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'No such event delivery in this program');
  // Refreshed: the caller's context may hold the row as it was before the update above.
  const delivery = await deps.em.findOneOrFail(EventDelivery, { id: deliveryId }, { refresh: true });
  deps.log.info({ programId, deliveryId, eventId: delivery.eventId }, 'outbound event replay requested');
  return { delivery, sweep: row.sweeps };
}

/** A page of an endpoint's deliveries, newest first (`before`: ids below it). */
export async function listEventDeliveries(
  deps: CoreDeps,
  programId: number,
  endpointId: number,
  q: { status?: IEventDelivery['status']; limit: number; before?: number },
): Promise<IEventDelivery[]> {
  return deps.em.find(
    EventDelivery,
    {
      program: programId,
      endpoint: endpointId,
      ...(q.status ? { status: q.status } : {}),
      ...(q.before ? { id: { $lt: q.before } } : {}),
    },
    { orderBy: { id: 'desc' }, limit: q.limit },
  );
}
