import type { Config } from '../config.ts';
import type { NotificationSender } from '../core/notifications/deliver-notification.ts';
import type { EventPoster } from '../core/outbound/deliver-event.ts';
import type { EmailTransport } from '../core/email/deliver-emails.ts';
import type { Clock, CoreDeps, Logger } from '../core/deps.ts';
import { parseWith } from '../core/jobs/job.ts';
import type { BackgroundWork } from './background-work.ts';
import type { Metrics } from '../metrics/create-metrics.ts';
import type { z } from 'zod';
import { type JobQueue, type QueueName, UnrecoverableJobError } from '../queue/job-queue.ts';

/** What the worker role uses, and nothing else (no HTTP concerns, no provider adapters). */
export type WorkerContext = {
  config: Pick<
    Config,
    | 'WORKER_CONCURRENCY'
    | 'SWEEP_INTERVAL_MS'
    | 'STATEMENT_CHECKPOINT_INTERVAL_MS'
    | 'PARKED_REFUND_DAYS'
    | 'WEBHOOK_ATTEMPTS'
    | 'WEBHOOK_RETRY_BASE_MS'
    | 'NOTIFY_ATTEMPTS'
    | 'NOTIFY_RETRY_BASE_MS'
    | 'WEBHOOK_PAYLOAD_RETENTION_DAYS'
    | 'EVENT_ATTEMPTS'
    | 'EVENT_RETRY_BASE_MS'
    | 'EVENT_TIMEOUT_MS'
    | 'EVENT_DISABLE_AFTER_FAILURES'
    | 'EMAIL_ATTEMPTS'
    | 'EMAIL_RETRY_BASE_MS'
    | 'EMAIL_LEASE_MS'
    | 'SMTP_FROM'
  >;
  /** Random per database: part of notify job ids, so a reset database never reuses one. */
  instanceNonce: string;
  queue: JobQueue;
  log: Logger;
  clock: Clock;
  notificationSender: NotificationSender;
  /** Sends one signed outbound event to a merchant's endpoint (post-event.ts; tests may replace it). */
  postEvent: EventPoster;
  /** Sends the email outbox's messages (SMTP); null: email is off (no SMTP_URL). */
  emailTransport: EmailTransport | null;
  metrics: Metrics;
  /** What jobs leave running after they answered; awaited before the queue and database close. */
  background: BackgroundWork;
  /** Core dependencies with a fresh EntityManager fork: one unit of work per job. */
  deps(): CoreDeps;
};

/**
 * Parses a job as read from its queue. One that does not parse can never succeed: it fails at
 * once with the reason (no retry), and the worker goes on with the next job.
 */
export function readJob<S extends z.ZodType>(
  w: WorkerContext,
  queue: QueueName,
  schema: S,
  data: unknown,
): z.output<S> {
  const parsed = parseWith(schema, data);
  if (parsed.ok) return parsed.value;
  w.log.error({ queue, err: parsed.reason }, 'malformed job rejected');
  throw new UnrecoverableJobError(`malformed ${queue} job: ${parsed.reason}`);
}
