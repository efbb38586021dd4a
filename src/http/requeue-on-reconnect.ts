import type { RouteContext } from './http-context.ts';
import { buildWebhookJob } from '../core/jobs/webhook-job.ts';
import { webhookJobOptions } from '../queue/job-options.ts';

/** The inbox rows this process stored while the queue was down (bounded; the sweeper has the rest). */
export type UnqueuedWebhooks = {
  /** Enqueues the row's first run, giving up after `ENQUEUE_WAIT_MS` (the row is then remembered). */
  enqueue(inboxId: number): Promise<void>;
  remember(inboxId: number): void;
};

/**
 * How long a webhook's acknowledgement waits for the queue. The row is stored before: past this the
 * provider is answered and the row waits for the queue's return (a provider gives up on a slow
 * endpoint and retries, which would only deliver the same event again). With the rate-limit check's
 * own bound (LIMITER_TIMEOUT_MS) and the inbox write, a delivery is acknowledged within 2 s even
 * while Redis hangs (docs/operations.md, Reliability).
 */
export const ENQUEUE_WAIT_MS = 1_000;

/**
 * Webhooks acknowledged from the inbox while the queue was unreachable are enqueued as soon as it
 * is back (`JobQueue.onReconnect`), not an inbox-sweep interval later. The inbox sweeper stays the
 * backstop for what this process cannot do (it stopped, another process stored the row, more than
 * `max` rows waited). The first run's job id is used, so a row the sweeper enqueued meanwhile is
 * not enqueued twice.
 */
export function requeueOnReconnect(
  ctx: Pick<RouteContext, 'queue' | 'config' | 'log'>,
  max = 10_000,
): UnqueuedWebhooks {
  const waiting = new Set<number>();
  const add = (id: number) => ctx.queue.add('webhook', buildWebhookJob(id), webhookJobOptions(ctx.config, id));
  let flushing = false;
  const flush = async () => {
    if (flushing) return;
    flushing = true;
    let enqueued = 0;
    try {
      for (const id of [...waiting]) {
        await add(id);
        waiting.delete(id);
        enqueued++;
      }
    } catch (err) {
      ctx.log.warn(
        { err: (err as Error).message, left: waiting.size },
        'enqueue after reconnect failed; the next reconnect or the inbox sweeper enqueues the rest',
      );
    } finally {
      flushing = false;
      if (enqueued) ctx.log.info({ enqueued }, 'webhooks stored during the queue outage enqueued on reconnect');
    }
  };
  ctx.queue.onReconnect(() => void flush());
  return {
    enqueue(inboxId) {
      const added = add(inboxId);
      // A late failure is already accounted for by the timeout below: never an unhandled rejection.
      added.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the queue did not take the job within ${ENQUEUE_WAIT_MS} ms`)),
          ENQUEUE_WAIT_MS,
        );
      });
      return Promise.race([added.then(() => {}), late]).finally(() => clearTimeout(timer));
    },
    remember(inboxId) {
      if (waiting.size < max) waiting.add(inboxId);
    },
  };
}
