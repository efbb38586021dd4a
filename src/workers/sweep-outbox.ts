import { findUndeliveredNotifications } from '../core/deliver-notification.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import type { WorkerContext } from './worker-context.ts';

/** Enqueues notifications written but never delivered (their enqueue failed). Returns how many. */
export async function sweepOutbox(w: WorkerContext): Promise<number> {
  const ids = await findUndeliveredNotifications(w.deps(), new Date(w.clock().getTime() - w.config.SWEEP_INTERVAL_MS));
  await enqueueNotifications(w, ids);
  return ids.length;
}
