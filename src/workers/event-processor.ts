import { attemptEventDelivery } from '../core/outbound/deliver-event.ts';
import { eventJobSchema } from '../core/jobs/event-job.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/**
 * The `outbound` queue: one attempt at an outbound event delivery per run. A failed attempt throws,
 * so the queue retries it with exponential backoff (EVENT_ATTEMPTS, EVENT_RETRY_BASE_MS); the
 * last one leaves the delivery `failed`. A destination the URL guard refuses fails the delivery
 * without a retry. The advertiser's notice of a disabled endpoint goes out through the
 * notification outbox.
 */
export function createEventProcessor(w: WorkerContext): JobHandler {
  return async (data, jc) => {
    const { deliveryId } = readJob(w, 'outbound', eventJobSchema, data);
    const outcome = await attemptEventDelivery(w.deps(), w.postEvent, deliveryId, {
      timeoutMs: w.config.EVENT_TIMEOUT_MS,
      disableAfter: w.config.EVENT_DISABLE_AFTER_FAILURES,
      final: jc.final,
    });
    if (outcome.kind !== 'failed' && outcome.kind !== 'refused') return outcome.kind;
    if (outcome.notificationId) await enqueueNotifications(w, [outcome.notificationId]);
    if (outcome.kind === 'refused') return outcome.kind;
    throw new Error(`event delivery ${deliveryId}: ${outcome.reason}`);
  };
}
