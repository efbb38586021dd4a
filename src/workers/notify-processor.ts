import { deliverNotification } from '../core/notifications/deliver-notification.ts';
import { notifyJobSchema } from '../core/jobs/notify-job.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/** The `notify` queue: delivers one outbox notification (retried by the queue on failure). */
export function createNotifyProcessor(w: WorkerContext): JobHandler {
  return async (data) => {
    const { notificationId } = readJob(w, 'notify', notifyJobSchema, data);
    return deliverNotification(w.deps(), w.notificationSender, notificationId);
  };
}
