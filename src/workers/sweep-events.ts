import { sweepEventOutbox } from '../core/outbound/event-outbox.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import { eventRetryHorizonMs } from '../queue/job-options.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Enqueues outbound event deliveries still pending: those whose enqueue failed or was never made
 * (under their own job id) and those whose job was lost (under a fresh id). Returns how many.
 */
export async function sweepEvents(w: WorkerContext): Promise<number> {
  const now = w.clock().getTime();
  const out = await sweepEventOutbox(w.deps(), {
    enqueuedBefore: new Date(now - w.config.SWEEP_INTERVAL_MS),
    stuckBefore: new Date(now - eventRetryHorizonMs(w.config)),
    now: new Date(now),
  });
  await enqueueEventDeliveries(w, [...out.waiting, ...out.stuck]);
  return out.waiting.length + out.stuck.length;
}
