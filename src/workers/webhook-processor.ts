import { webhookJobSchema } from '../core/jobs/webhook-job.ts';
import { markWebhookFailed, processWebhookEvent } from '../core/webhook-inbox.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/**
 * The `webhook` queue: runs one inbox row. Failures are retried with backoff (a refund before its
 * sale); after the last attempt the row is marked failed, visible and replayable.
 */
export function createWebhookProcessor(w: WorkerContext): JobHandler {
  return async (data, jc) => {
    const { inboxId } = readJob(w, 'webhook', webhookJobSchema, data);
    try {
      const res = await processWebhookEvent(w.deps(), inboxId);
      await enqueueNotifications(w, res.notificationIds);
      return { status: res.status, outcome: res.outcome };
    } catch (err) {
      if (jc.final) {
        const message = err instanceof Error ? err.message : String(err);
        await markWebhookFailed(w.deps(), inboxId, message);
        w.log.error({ inboxId, attempts: jc.attempt, err: message }, 'webhook event failed after all retries');
      }
      throw err;
    }
  };
}
