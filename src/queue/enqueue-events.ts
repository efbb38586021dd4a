import type { Config } from '../config.ts';
import type { Logger } from '../core/deps.ts';
import { buildEventJob } from '../core/jobs/event-job.ts';
import { eventJobOptions } from './job-options.ts';
import type { JobQueue } from './job-queue.ts';

export type EventEnqueuer = {
  queue: JobQueue;
  log: Logger;
  config: Pick<Config, 'EVENT_ATTEMPTS' | 'EVENT_RETRY_BASE_MS'>;
  instanceNonce: string;
};

/**
 * Enqueues outbound event deliveries after the transaction that wrote them committed (a worker's
 * job, an admin call). A failure to enqueue never changes the caller's answer: the outbox sweeper
 * enqueues what was not.
 */
export async function enqueueEventDeliveries(
  w: EventEnqueuer,
  ids: ReadonlyArray<number | { id: number; sweep: number }>,
): Promise<void> {
  for (const item of ids) {
    const id = typeof item === 'number' ? item : item.id;
    const sweep = typeof item === 'number' ? null : item.sweep;
    await w.queue
      .add('outbound', buildEventJob(id), eventJobOptions(w.config, w.instanceNonce, id, sweep))
      .catch((err: Error) =>
        w.log.warn(
          { deliveryId: id, err: err.message },
          'event delivery not enqueued; the outbox sweeper will send it',
        ),
      );
  }
}
