import type { EntityDictionary } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import type { Settled } from '../shared/micro-batch.ts';
import { Notification, type INotification } from '../entities/notification.ts';
import { typedSql } from '../db/sql.ts';

/** Outbound delivery of a notification (in-app feed, e-mail, ...). Injected; tests record calls. */
export type NotificationSender = { send(n: INotification): Promise<void> };

export type DeliveryOutcome = 'delivered' | 'already_delivered' | 'missing';

/**
 * Delivers one outbox notification (at least once). Runs after the transaction that wrote it
 * committed, so a failing sender never changes a refund response; a failure is retried by the
 * queue. No transaction or row lock is held across the send: the sender is outside our control
 * and embedded mode has a single database connection.
 */
export async function deliverNotification(
  deps: CoreDeps,
  sender: NotificationSender,
  id: number,
): Promise<DeliveryOutcome> {
  const [outcome] = await deliverNotifications(deps, sender, [id]);
  if (!outcome!.ok) throw outcome!.error;
  return outcome!.value;
}

/**
 * `deliverNotification` for several notifications at once (those of jobs that finished close
 * together): one read of their rows, each sent in id order, one update marking the sent ones
 * delivered. Each id settles on its own: a failed send fails that id only; a failed update fails
 * every id it would have marked (sent again on retry, as a single delivery whose update failed).
 */
export async function deliverNotifications(
  deps: CoreDeps,
  sender: NotificationSender,
  ids: number[],
): Promise<Array<Settled<DeliveryOutcome>>> {
  if (!ids.length) return [];
  const em = deps.em;
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  // Plain reads mapped onto the entity: rows by their key need no unit of work.
  const rows = await typedSql(em).selectFrom('notification').selectAll().where('id', 'in', unique).execute();
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const outcomes = new Map<number, Settled<DeliveryOutcome>>();
  const sent: number[] = [];
  for (const id of unique) {
    const row = byId.get(id);
    if (!row) {
      outcomes.set(id, { ok: true, value: 'missing' });
      continue;
    }
    const n = em.map(Notification, row as EntityDictionary<INotification>);
    if (n.deliveredAt) {
      outcomes.set(id, { ok: true, value: 'already_delivered' });
      continue;
    }
    try {
      await sender.send(n);
      sent.push(id);
    } catch (error) {
      outcomes.set(id, { ok: false, error });
    }
  }
  if (sent.length) {
    // One statement, no unit of work: a flush would wrap it in BEGIN/COMMIT.
    const marked = await typedSql(em)
      .updateTable('notification')
      .set({ delivered_at: deps.clock() })
      .where('id', 'in', sent)
      .execute()
      .then(
        (): Settled<DeliveryOutcome> => ({ ok: true, value: 'delivered' }),
        (error: unknown): Settled<DeliveryOutcome> => ({ ok: false, error }),
      );
    for (const id of sent) outcomes.set(id, marked);
  }
  return ids.map((id) => outcomes.get(id)!);
}

/** What the outbox sweeper enqueues: `waiting` under the row's own job id, `stuck` under a fresh one. */
export type OutboxSweep = { waiting: number[]; stuck: Array<{ id: number; sweep: number }> };

/**
 * Undelivered notifications for the outbox sweeper.
 * - `waiting`: written before `enqueuedBefore` and never swept. Their job may never have been
 *   added (Redis down at commit); adding it again under the same id is a no-op if it was.
 * - `stuck`: not delivered `stuckBefore` after the later of their creation and their last sweep,
 *   i.e. after every attempt of their job ran out. A failed job keeps its id in BullMQ, so these
 *   are claimed here (`sweeps` + 1) and re-enqueued under an id that includes the sweep number.
 */
export async function sweepNotificationOutbox(
  deps: CoreDeps,
  at: { enqueuedBefore: Date; stuckBefore: Date; now: Date },
  limit = 500,
): Promise<OutboxSweep> {
  const em = deps.em;
  const stuck = await typedSql(em)
    .updateTable('notification')
    .set((eb) => ({ sweeps: eb('sweeps', '+', 1), swept_at: at.now }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('notification as n')
        .select('n.id')
        .where('n.delivered_at', 'is', null)
        .where((w) => w(w.fn.coalesce('n.swept_at', 'n.created_at'), '<=', at.stuckBefore))
        .orderBy('n.id')
        .limit(limit),
    )
    .returning(['id', 'sweeps'])
    .execute();
  const waiting = await em.find(
    Notification,
    { deliveredAt: null, sweptAt: null, createdAt: { $lte: at.enqueuedBefore } },
    { fields: ['id'], limit, orderBy: { id: 'asc' } },
  );
  return { waiting: waiting.map((r) => r.id), stuck: stuck.map((r) => ({ id: r.id, sweep: r.sweeps })) };
}
