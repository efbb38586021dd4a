import type { TrackJob } from '../core/jobs/job.ts';
import type { NotifyJob } from '../core/jobs/notify-job.ts';
import type { WebhookJob } from '../core/jobs/webhook-job.ts';
import type { EventJob } from '../core/jobs/event-job.ts';
import type { JobOptions } from './job-options.ts';

/**
 * The queues and what each carries: `track` (API calls awaited by HTTP), `webhook` (inbox rows),
 * `notify` (notification outbox), `outbound` (outbound event deliveries to merchants' endpoints).
 */
export type QueueJobs = { track: TrackJob; webhook: WebhookJob; notify: NotifyJob; outbound: EventJob };
export type QueueName = keyof QueueJobs;
export const QUEUE_NAMES = ['track', 'webhook', 'notify', 'outbound'] as const satisfies readonly QueueName[];

export type JobContext = { attempt: number; final: boolean };

/** Jobs of one queue by state (metrics); `failed` holds jobs that used up their attempts. */
export type QueueCounts = { waiting: number; active: number; delayed: number; failed: number };
/**
 * Consumes one job. It receives the job's data as stored, unchecked: the processor parses it
 * (what travels through Redis is read back, not trusted).
 */
export type JobHandler = (data: unknown, ctx: JobContext) => Promise<unknown>;

/** Thrown by `addAndWait` when the result did not arrive in time (the job may still complete). */
export class JobTimeoutError extends Error {
  constructor(ms: number) {
    super(`job result not received within ${ms} ms`);
    this.name = 'JobTimeoutError';
  }
}

/** Thrown by `add`/`addAndWait` when the job could not be enqueued (e.g. Redis down). */
export class EnqueueError extends Error {
  constructor(cause: unknown) {
    super(`could not enqueue job: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'EnqueueError';
  }
}

/**
 * Thrown by `addAndWait` when the job failed for good on a temporary failure (the database could not
 * be reached or did not answer in time): the caller may retry the call with the same idempotency key.
 */
export class JobUnavailableError extends Error {
  constructor(reason: string) {
    super(`job failed on a temporary failure: ${reason}`);
    this.name = 'JobUnavailableError';
  }
}

/** Thrown by a handler for a job that can never succeed (it does not parse): failed at once, no retry. */
export class UnrecoverableJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnrecoverableJobError';
  }
}

/**
 * One job contract, two implementations: BullMQ on Redis (production) and an in-process queue
 * (embedded mode) with the same retry semantics.
 */
export interface JobQueue {
  readonly kind: 'bullmq' | 'memory';
  add<Q extends QueueName>(queue: Q, job: QueueJobs[Q], opts?: JobOptions): Promise<string>;
  /**
   * Enqueues a track job and waits for the handler's return value (rejects with its final
   * error). The value is returned as received; `enqueueAndWait` parses it into the job's result type.
   */
  addAndWait(queue: 'track', job: TrackJob, timeoutMs: number): Promise<unknown>;
  /** Starts consuming a queue (worker role). */
  process(queue: QueueName, handler: JobHandler, concurrency: number): void;
  ping(): Promise<boolean>;
  /**
   * Calls `listener` each time the queue is reachable again after losing its connection (never for
   * the first connection; never in embedded mode, whose queue cannot be lost).
   */
  onReconnect(listener: () => void): void;
  counts(queue: QueueName): Promise<QueueCounts>;
  /**
   * Worker processes consuming each queue right now (BullMQ: the workers' named Redis connections,
   * which vanish when a worker stops or dies; in-process: 1 while this process consumes it).
   */
  consumers(): Promise<Record<QueueName, number>>;
  /** Stops taking jobs and waits for the running ones to finish. */
  closeWorkers(): Promise<void>;
  close(): Promise<void>;
}
