import { instrumentJobHandler } from '../metrics/create-metrics.ts';
import { createNotifyProcessor } from './notify-processor.ts';
import { sweepHolds } from './sweep-holds.ts';
import { sweepInbox } from './sweep-inbox.ts';
import { sweepOutbox } from './sweep-outbox.ts';
import { sweepEvents } from './sweep-events.ts';
import { createEventProcessor } from './event-processor.ts';
import { sweepSessions } from './sweep-sessions.ts';
import { sweepPayloads } from './sweep-payloads.ts';
import { sweepParked } from './sweep-parked-refunds.ts';
import { sweepPayoutSchedule } from './sweep-payout-schedule.ts';
import { sweepRollupDays } from './sweep-rollups.ts';
import { sweepStatementCheckpoints } from './sweep-statement-checkpoints.ts';
import { sweepEmails } from './sweep-emails.ts';
import { createTrackProcessor } from './track-processor.ts';
import { createWebhookProcessor, WEBHOOK_BATCH } from './webhook-processor.ts';
import type { WorkerContext } from './worker-context.ts';

const SWEEPERS = {
  inbox: sweepInbox,
  outbox: sweepOutbox,
  events: sweepEvents,
  holds: sweepHolds,
  sessions: sweepSessions,
  payloads: sweepPayloads,
  parkedRefunds: sweepParked,
  payoutSchedule: sweepPayoutSchedule,
  rollups: sweepRollupDays,
  statementCheckpoints: sweepStatementCheckpoints,
  emails: sweepEmails,
} as const;

/** Runs every sweeper once; one failing does not stop the others (each retries next interval). */
export async function runSweepers(w: WorkerContext): Promise<void> {
  for (const [name, sweep] of Object.entries(SWEEPERS)) {
    try {
      await sweep(w);
    } catch (err) {
      w.log.warn(
        { sweeper: name, err: err instanceof Error ? err.message : String(err) },
        'sweep failed; will retry next interval',
      );
    }
  }
}

/**
 * Worker role: consumes the four queues and runs the sweepers every SWEEP_INTERVAL_MS. Returns a
 * stopper that waits for a running sweep and lets running jobs finish.
 */
export function startWorkers(w: WorkerContext): { stop(): Promise<void> } {
  const c = w.config.WORKER_CONCURRENCY;
  w.queue.process('track', instrumentJobHandler(w.metrics, 'track', createTrackProcessor(w)), c);
  // Webhook jobs run in batches (webhook-processor.ts): twice the batch size in flight lets one
  // batch form while the previous one waits on the database.
  w.queue.process(
    'webhook',
    instrumentJobHandler(w.metrics, 'webhook', createWebhookProcessor(w)),
    2 * WEBHOOK_BATCH.maxSize,
  );
  w.queue.process('notify', instrumentJobHandler(w.metrics, 'notify', createNotifyProcessor(w)), 4);
  // Deliveries wait on merchants' endpoints (up to EVENT_TIMEOUT_MS each): their own queue, so a
  // slow endpoint never delays notifications.
  w.queue.process('outbound', instrumentJobHandler(w.metrics, 'outbound', createEventProcessor(w)), c);
  let sweeping: Promise<void> | null = null;
  const timer = setInterval(() => {
    sweeping ??= runSweepers(w).finally(() => {
      sweeping = null;
    });
  }, w.config.SWEEP_INTERVAL_MS);
  timer.unref();
  w.log.info({ concurrency: c, queue: w.queue.kind }, 'workers started');
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
      await w.queue.closeWorkers();
      await w.background.settled();
    },
  };
}
