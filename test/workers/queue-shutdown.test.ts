/**
 * Shutdown with a retry waiting for its backoff (embedded mode's in-process queue): the queue
 * closes as soon as its running jobs are done, without waiting out the backoff; the dropped retry
 * fails with a message saying so (its inbox or outbox row stays pending, and the sweeper enqueues it
 * after the next start). Before, closing waited for the retry to fire and run, past the 30 s
 * shutdown limit.
 */
import { expect, test } from 'vitest';
import { createMemoryQueue } from '../../src/queue/memory-queue.ts';
import { buildWebhookJob } from '../../src/core/jobs/webhook-job.ts';

test('close drops a retry waiting for its backoff and returns at once; a running job still finishes', async () => {
  const q = createMemoryQueue();
  let calls = 0;
  let release!: () => void;
  const running = new Promise<void>((r) => (release = r));
  q.process(
    'webhook',
    async (data) => {
      calls++;
      if ((data as { inboxId: number }).inboxId === 1) throw new Error('database unavailable');
      await running; // inbox row 2 is still running when the shutdown starts
      return 'done';
    },
    2,
  );
  await q.add('webhook', buildWebhookJob(1), { jobId: 'webhook-1', attempts: 5, backoffMs: 60_000 });
  await q.add('webhook', buildWebhookJob(2), { jobId: 'webhook-2', attempts: 5, backoffMs: 60_000 });
  await new Promise((r) => setTimeout(r, 50));
  expect(calls).toBe(2);
  expect((await q.counts('webhook')).delayed).toBe(1);

  const started = Date.now();
  const closing = q.close();
  await new Promise((r) => setTimeout(r, 20));
  release();
  await closing;
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(calls).toBe(2); // the retry never ran
  expect(await q.counts('webhook')).toMatchObject({ delayed: 0, active: 0, failed: 1 });
  await expect(q.add('webhook', buildWebhookJob(3))).rejects.toThrow(/closing/);
});
