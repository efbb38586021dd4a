import { buildWebhookJob } from '../core/jobs/webhook-job.ts';
import { findStalePendingWebhooks, markWebhooksRequeued } from '../core/webhooks/webhook-inbox.ts';
import { webhookJobOptions, webhookRetryHorizonMs } from '../queue/job-options.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Re-enqueues inbox rows left pending: acknowledged but never enqueued (the queue was down), or
 * tried and still pending past every retry (the job was lost), counted from the row's last requeue
 * (replay, sweep) if any. Returns how many it enqueued.
 */
export async function sweepInbox(w: WorkerContext): Promise<number> {
  const now = w.clock().getTime();
  const deps = w.deps();
  const rows = await findStalePendingWebhooks(deps, {
    neverRunBefore: new Date(now - w.config.SWEEP_INTERVAL_MS),
    stuckBefore: new Date(now - webhookRetryHorizonMs(w.config)),
  });
  const added: number[] = [];
  try {
    for (const row of rows) {
      const run =
        row.attempts > 0 ? ({ kind: 'sweep', attempts: row.attempts } as const) : ({ kind: 'first' } as const);
      await w.queue.add('webhook', buildWebhookJob(row.id), webhookJobOptions(w.config, row.id, run));
      added.push(row.id);
    }
  } finally {
    // A swept row gets a whole retry horizon again before the next sweep may take it: its new job's
    // own retries would otherwise race a second sweep job. One statement for the rows enqueued.
    if (added.length) await markWebhooksRequeued(deps, added);
  }
  return rows.length;
}
