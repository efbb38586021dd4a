import type { CoreDeps } from './deps.ts';
import { Notification, type INotification } from './entities/notification.ts';

/** Outbound delivery of a notification (in-app feed, e-mail, ...). Injected; tests record calls. */
export type NotificationSender = { send(n: INotification): Promise<void> };

/**
 * Delivers one outbox notification once. Runs after the transaction that wrote it committed, so a
 * failing sender never changes a refund response; a failure is retried by the queue.
 */
export async function deliverNotification(deps: CoreDeps, sender: NotificationSender, id: number): Promise<'delivered' | 'already_delivered' | 'missing'> {
  const em = deps.em.fork();
  const n = await em.findOne(Notification, { id });
  if (!n) return 'missing';
  if (n.deliveredAt) return 'already_delivered';
  await sender.send(n);
  n.deliveredAt = deps.clock();
  await em.flush();
  return 'delivered';
}

/** Notifications still waiting for delivery (for the outbox sweeper). */
export async function findUndeliveredNotifications(deps: CoreDeps, olderThan: Date, limit = 500): Promise<number[]> {
  const rows = await deps.em.fork().find(Notification, { deliveredAt: null, createdAt: { $lte: olderThan } }, { fields: ['id'], limit, orderBy: { id: 'asc' } });
  return rows.map((r) => r.id);
}
