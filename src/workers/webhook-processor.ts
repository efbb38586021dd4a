import { webhookJobSchema } from '../core/jobs/webhook-job.ts';
import { type ProcessedWebhook, processWebhookEvents } from '../core/webhooks/process-webhook-events.ts';
import { markWebhookFailed } from '../core/webhooks/webhook-inbox.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { createMicroBatcher, type MicroBatchOptions } from '../core/shared/micro-batch.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/**
 * Inbox rows run together when their jobs arrive within a couple of milliseconds of each other:
 * one read and one write of the rows per batch instead of per row (drain rate, `npm run bench`).
 * 32 rows: at 32 connections processing then keeps up with the acknowledgements of the same
 * process (drained 0.98 of the acknowledgement rate, against 0.89 with 16; docs/performance.md).
 */
export const WEBHOOK_BATCH: MicroBatchOptions = { maxSize: 32, lingerMs: 2 };

/**
 * The `webhook` queue: runs one inbox row per job, batched with the rows of the jobs running
 * beside it. Failures are retried with backoff (a refund before its sale); after the last attempt
 * the row is marked failed, visible and replayable. Each job keeps its own outcome: one row
 * failing in a batch fails only its job.
 */
export function createWebhookProcessor(w: WorkerContext, batch: MicroBatchOptions = WEBHOOK_BATCH): JobHandler {
  const processRow = createMicroBatcher<number, ProcessedWebhook>(
    async (inboxIds) => processWebhookEvents(w.deps(), inboxIds),
    batch,
  );
  return async (data, jc) => {
    const { inboxId } = readJob(w, 'webhook', webhookJobSchema, data);
    try {
      const res = await processRow(inboxId);
      await enqueueNotifications(w, res.notificationIds);
      // A row that failed returns none: those of its jobs that committed wait for the outbox sweeper.
      await enqueueEventDeliveries(w, res.deliveryIds);
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
