import { sweepNotificationOutbox } from '../core/notifications/deliver-notification.ts';
import { notifyRetryHorizonMs } from '../queue/job-options.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Enqueues notifications never delivered: those whose enqueue failed (under their own job id) and
 * those whose job ran out of attempts (under a fresh id per sweep). Returns how many.
 */
export async function sweepOutbox(w: WorkerContext): Promise<number> {
  const now = w.clock().getTime();
  const out = await sweepNotificationOutbox(w.deps(), {
    enqueuedBefore: new Date(now - w.config.SWEEP_INTERVAL_MS),
    stuckBefore: new Date(now - notifyRetryHorizonMs(w.config)),
    now: new Date(now),
  });
  await enqueueNotifications(w, [...out.waiting, ...out.stuck]);
  return out.waiting.length + out.stuck.length;
}
