import type { Clock, CoreDeps } from '../core/deps.ts';
import { QUEUE_NAMES, type JobQueue } from '../queue/job-queue.ts';
import type { Metrics } from './create-metrics.ts';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

// Both read only the rows that need attention, through the (status, received_at) and
// (delivered_at) indexes: cheap however many processed rows the tables hold.
const INBOX_SQL = `select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'failed')::int as failed,
  extract(epoch from min(received_at) filter (where status = 'pending'))::float8 as oldest
  from webhook_event where status in ('pending', 'failed')`;
const OUTBOX_SQL = `select count(*)::int as pending, extract(epoch from min(created_at))::float8 as oldest from notification where delivered_at is null`;

type Sources = { deps(): Pick<CoreDeps, 'em'>; queue: JobQueue; clock: Clock; metrics: Metrics };

/**
 * Sets the scrape-time gauges: queue depth per queue and state, webhook inbox backlog and the age
 * of its oldest pending row, notification outbox backlog and lag. A source that cannot answer
 * (Redis or the database down) is counted in `tracker_metrics_scrape_errors_total` and its gauges
 * keep their last value: the scrape itself still succeeds.
 */
export async function refreshGauges(s: Sources): Promise<void> {
  const m = s.metrics;
  const nowSeconds = s.clock().getTime() / 1000;
  const age = (oldest: number | null) => (oldest === null ? 0 : Math.max(0, nowSeconds - oldest));
  await Promise.all([
    ...QUEUE_NAMES.map(async (queue) => {
      try {
        const counts = await s.queue.counts(queue);
        for (const state of QUEUE_STATES) m.queueJobs.set({ queue, state }, counts[state]);
      } catch {
        m.scrapeErrors.inc({ source: 'queue' });
      }
    }),
    (async () => {
      try {
        const { em } = s.deps();
        const [inbox] = await em.execute<Array<{ pending: number; failed: number; oldest: number | null }>>(INBOX_SQL);
        m.webhookInboxRows.set({ status: 'pending' }, inbox?.pending ?? 0);
        m.webhookInboxRows.set({ status: 'failed' }, inbox?.failed ?? 0);
        m.webhookOldestPending.set(age(inbox?.oldest ?? null));
        const [outbox] = await em.execute<Array<{ pending: number; oldest: number | null }>>(OUTBOX_SQL);
        m.outboxPending.set(outbox?.pending ?? 0);
        m.outboxLag.set(age(outbox?.oldest ?? null));
      } catch {
        m.scrapeErrors.inc({ source: 'database' });
      }
    })(),
  ]);
}
