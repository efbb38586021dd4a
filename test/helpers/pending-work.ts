/**
 * Work a run left unfinished, for the long runs (topology, soak) that wait for the service to catch
 * up before checking exactly-once: jobs per queue, failed jobs apart, and the database's own queues
 * (webhook inbox, parked refunds, event and email outboxes).
 */
import { Queue, type ConnectionOptions } from 'bullmq';
import type pg from 'pg';
import { QUEUE_NAMES } from '../../src/queue/job-queue.ts';

export type Pending = Record<string, number>;

/** Where the work waits: the queue's prefix and Redis (asked each time: a failover moves it), the database. */
export type WorkPlace = { prefix: string; redis: () => Promise<ConnectionOptions>; pool: pg.Pool };

async function eachQueue(w: WorkPlace, fn: (name: string, q: Queue) => Promise<void>): Promise<void> {
  const connection = { ...(await w.redis()), maxRetriesPerRequest: 1 };
  for (const name of QUEUE_NAMES) {
    const q = new Queue(name, { prefix: w.prefix, connection });
    try {
      await fn(name, q);
    } finally {
      await q.close();
    }
  }
}

/** Work not finished yet, by where it waits; failed jobs are reported apart (`failed_jobs`). */
export async function pendingWork(w: WorkPlace): Promise<Pending> {
  const out: Pending = {};
  await eachQueue(w, async (name, q) => {
    const c = await q.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
    out[`queue_${name}`] = c.wait! + c.active! + c.delayed! + c.prioritized! + c['waiting-children']!;
    out.failed_jobs = (out.failed_jobs ?? 0) + c.failed!;
  });
  const {
    rows: [r],
  } = await w.pool.query(`select
      (select count(*) from webhook_event where status = 'pending')::int as inbox,
      (select count(*) from parked_refund where status = 'parked')::int as parked_refunds,
      (select count(*) from event_delivery where status = 'pending')::int as event_outbox,
      (select count(*) from email_message where sent_at is null and failed_at is null)::int as email_outbox`);
  return { ...out, ...r };
}

/** How many jobs failed for good, by queue, job name and reason (for the report). */
export async function failedJobReasons(w: WorkPlace): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  await eachQueue(w, async (name, q) => {
    for (const j of await q.getFailed(0, 100)) {
      const k = `${name} ${j.name}: ${(j.failedReason ?? '').slice(0, 100)}`;
      out[k] = (out[k] ?? 0) + 1;
    }
  });
  return out;
}

/**
 * Waits until nothing is pending (failed jobs aside) or `timeoutMs`; returns the last counts, which
 * the caller asserts on. A read that fails (the check's own connections meet the faults too) is
 * tried again.
 */
export async function waitDrained(w: WorkPlace, timeoutMs: number): Promise<Pending> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await pendingWork(w).catch((e: Error) => ({ error: 1, [e.message]: 1 }) as Pending);
    if (Object.entries(p).every(([k, v]) => k === 'failed_jobs' || v === 0)) return p;
    if (Date.now() > deadline) return p;
    await new Promise((r) => setTimeout(r, 500));
  }
}
