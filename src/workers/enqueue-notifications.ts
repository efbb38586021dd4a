import { deliverNotifications, type DeliveryOutcome } from '../core/notifications/deliver-notification.ts';
import { createMicroBatcher, type MicroBatchOptions, type Settled } from '../core/shared/micro-batch.ts';
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
 * Notifications of jobs that finished within this long of each other are delivered together (one
 * read, one update): delivery follows the answer, so waiting a little costs no caller anything.
 */
export const AFTER_COMMIT_DELIVERY: MicroBatchOptions = { maxSize: 64, lingerMs: 20 };

/**
 * Delivers notifications just committed by the job that wrote them, after that job's result went
 * out (never delaying its answer); a notify job per notification only when a delivery fails, which
 * then retries with backoff. A process that stops first leaves the rows to the outbox sweeper, as
 * a lost enqueue would. One job's notifications always go out together, in id order.
 */
export function createAfterCommitDelivery(
  w: Pick<WorkerContext, 'queue' | 'log' | 'config' | 'instanceNonce' | 'deps' | 'notificationSender' | 'background'>,
  opts: MicroBatchOptions = AFTER_COMMIT_DELIVERY,
): (ids: number[]) => void {
  const deliver = createMicroBatcher<number[], Array<Settled<DeliveryOutcome>>>(async (jobs) => {
    const outcomes = await deliverNotifications(w.deps(), w.notificationSender, jobs.flat());
    let at = 0;
    return jobs.map((ids) => ({ ok: true as const, value: outcomes.slice(at, (at += ids.length)) }));
  }, opts);
  const failed = async (id: number, err: unknown) => {
    w.log.warn(
      { notificationId: id, err: err instanceof Error ? err.message : String(err) },
      'notification delivery failed; retried by a notify job',
    );
    await enqueueNotifications(w, [id]);
  };
  return (ids) => {
    if (!ids.length) return;
    w.background.start(
      deliver(ids).then(
        async (outcomes) => {
          for (const [i, o] of outcomes.entries()) if (!o.ok) await failed(ids[i]!, o.error);
        },
        async (err: unknown) => {
          for (const id of ids) await failed(id, err);
        },
      ),
    );
  };
}
