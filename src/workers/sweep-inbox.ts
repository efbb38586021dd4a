import { buildWebhookJob } from '../core/jobs/webhook-job.ts';
import { findStalePendingWebhooks } from '../core/webhook-inbox.ts';
import { webhookJobOptions, webhookRetryHorizonMs } from '../queue/job-options.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Re-enqueues inbox rows left pending: acknowledged but never enqueued (the queue was down), or
 * tried and still pending past every retry (the job was lost). Returns how many it enqueued.
 */
export async function sweepInbox(w: WorkerContext): Promise<number> {
  const now = w.clock().getTime();
  const rows = await findStalePendingWebhooks(w.deps(), {
    neverRunBefore: new Date(now - w.config.SWEEP_INTERVAL_MS),
    stuckBefore: new Date(now - webhookRetryHorizonMs(w.config)),
  });
  for (const row of rows) {
    const run = row.attempts > 0 ? ({ kind: 'sweep', attempts: row.attempts } as const) : ({ kind: 'first' } as const);
    await w.queue.add('webhook', buildWebhookJob(row.id), webhookJobOptions(w.config, row.id, run));
  }
  return rows.length;
}
