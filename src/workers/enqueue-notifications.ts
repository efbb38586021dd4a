import { deliverNotification } from '../core/deliver-notification.ts';
import { buildNotifyJob } from '../core/jobs/notify-job.ts';
import { notifyJobOptions } from '../queue/job-options.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Notifications go out after the transaction that wrote them committed; a failure to enqueue never
 * changes a response: the outbox sweeper delivers what was not enqueued.
 */
export async function enqueueNotifications(
  w: Pick<WorkerContext, 'queue' | 'log' | 'config' | 'instanceNonce'>,
  ids: Array<number | { id: number; sweep: number }>,
): Promise<void> {
  for (const item of ids) {
    const id = typeof item === 'number' ? item : item.id;
    await w.queue
      .add(
        'notify',
        buildNotifyJob(id),
        notifyJobOptions(w.config, w.instanceNonce, id, typeof item === 'number' ? null : item.sweep),
      )
      .catch((err) =>
        w.log.warn(
          { notificationId: id, err: err.message },
          'notification not enqueued; the outbox sweeper will deliver it',
        ),
      );
  }
}

/**
 * Delivers notifications just committed by the job that wrote them, after that job's result went
 * out (never delaying its answer); a notify job per notification only when a delivery fails, which
 * then retries with backoff. A process that stops first leaves the rows to the outbox sweeper, as
 * a lost enqueue would.
 */
export function deliverAfterCommit(
  w: Pick<WorkerContext, 'queue' | 'log' | 'config' | 'instanceNonce' | 'deps' | 'notificationSender'>,
  ids: number[],
): void {
  if (!ids.length) return;
  void (async () => {
    for (const id of ids) {
      try {
        await deliverNotification(w.deps(), w.notificationSender, id);
      } catch (err) {
        w.log.warn(
          { notificationId: id, err: err instanceof Error ? err.message : String(err) },
          'notification delivery failed; retried by a notify job',
        );
        await enqueueNotifications(w, [id]);
      }
    }
  })();
}
