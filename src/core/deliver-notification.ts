import type { CoreDeps } from './deps.ts';
import { Notification, type INotification } from './entities/notification.ts';

/** Outbound delivery of a notification (in-app feed, e-mail, ...). Injected; tests record calls. */
export type NotificationSender = { send(n: INotification): Promise<void> };

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
): Promise<'delivered' | 'already_delivered' | 'missing'> {
  const em = deps.em;
  const n = await em.findOne(Notification, { id });
  if (!n) return 'missing';
  if (n.deliveredAt) return 'already_delivered';
  await sender.send(n);
  // One statement, no unit of work: a flush would wrap this update in BEGIN/COMMIT.
  await em.execute('update notification set delivered_at = ? where id = ?', [deps.clock(), id]);
  return 'delivered';
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
  const stuck = await em.execute<Array<{ id: number; sweeps: number }>>(
    `update "notification" set "sweeps" = "sweeps" + 1, "swept_at" = ?
     where "id" in (select "id" from "notification" where "delivered_at" is null and coalesce("swept_at", "created_at") <= ? order by "id" limit ?)
     returning "id", "sweeps"`,
    [at.now, at.stuckBefore, limit],
  );
  const waiting = await em.find(
    Notification,
    { deliveredAt: null, sweptAt: null, createdAt: { $lte: at.enqueuedBefore } },
    { fields: ['id'], limit, orderBy: { id: 'asc' } },
  );
  return { waiting: waiting.map((r) => r.id), stuck: stuck.map((r) => ({ id: r.id, sweep: r.sweeps })) };
}
