import type { EntityManager } from '@mikro-orm/sql';
import type { Clock, CoreDeps } from '../core/deps.ts';
import { QUEUE_NAMES, type JobQueue } from '../queue/job-queue.ts';
import type { Metrics } from './create-metrics.ts';
import { epochMs, typedSql } from '../core/db/sql.ts';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * The inbox's and the outbox's backlog: rows needing attention and the oldest one's time. Both read
 * only those rows, through the (status, received_at) and (delivered_at) indexes: cheap however many
 * processed rows the tables hold.
 */
async function readBacklogs(em: EntityManager) {
  const db = typedSql(em);
  const [inbox, outbox] = await Promise.all([
    db
      .selectFrom('webhook_event')
      .where('status', 'in', ['pending', 'failed'])
      .select((eb) => [
        eb.fn.countAll<string>().filterWhere('status', '=', 'pending').as('pending'),
        eb.fn.countAll<string>().filterWhere('status', '=', 'failed').as('failed'),
        epochMs(eb.fn.min('received_at').filterWhere('status', '=', 'pending')).as('oldest'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('notification')
      .where('delivered_at', 'is', null)
      .select((eb) => [eb.fn.countAll<string>().as('pending'), epochMs(eb.fn.min('created_at')).as('oldest')])
      .executeTakeFirstOrThrow(),
  ]);
  return { inbox, outbox };
}

type Sources = { deps(): Pick<CoreDeps, 'em'>; queue: JobQueue; clock: Clock; metrics: Metrics };

/**
 * Sets the scrape-time gauges: queue depth per queue and state, webhook inbox backlog and the age
 * of its oldest pending row, notification outbox backlog and lag. A source that cannot answer
 * (Redis or the database down) is counted in `tracker_metrics_scrape_errors_total` and its gauges
 * keep their last value: the scrape itself still succeeds.
 */
export async function refreshGauges(s: Sources): Promise<void> {
  const m = s.metrics;
  const now = s.clock().getTime();
  const age = (oldestMs: string | null) => (oldestMs === null ? 0 : Math.max(0, (now - Number(oldestMs)) / 1000));
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
        const { inbox, outbox } = await readBacklogs(s.deps().em);
        m.webhookInboxRows.set({ status: 'pending' }, Number(inbox.pending));
        m.webhookInboxRows.set({ status: 'failed' }, Number(inbox.failed));
        m.webhookOldestPending.set(age(inbox.oldest));
        m.outboxPending.set(Number(outbox.pending));
        m.outboxLag.set(age(outbox.oldest));
      } catch {
        m.scrapeErrors.inc({ source: 'database' });
      }
    })(),
  ]);
}
