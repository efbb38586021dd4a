import type { Job } from '../core/jobs.ts';

/** The queues: `track` (API calls awaited by HTTP), `webhook` (inbox rows), `notify` (outbox). */
export const QUEUE_NAMES = ['track', 'webhook', 'notify'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export type JobOptions = {
  /** Defence in depth only (the database decides); must not contain `:`. */
  jobId?: string;
  attempts?: number;
  /** First retry delay; doubles on each further attempt. */
  backoffMs?: number;
};

export type JobContext = { attempt: number; final: boolean };

/** Jobs of one queue by state (metrics); `failed` holds jobs that used up their attempts. */
export type QueueCounts = { waiting: number; active: number; delayed: number; failed: number };
export type JobHandler = (job: Job, ctx: JobContext) => Promise<unknown>;

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
 * One job contract, two implementations: BullMQ on Redis (production) and an in-process queue
 * (embedded mode) with the same retry semantics.
 */
export interface JobQueue {
  readonly kind: 'bullmq' | 'memory';
  add(queue: QueueName, job: Job, opts?: JobOptions): Promise<string>;
  /** Enqueues and waits for the handler's return value (rejects with its final error). */
  addAndWait(queue: QueueName, job: Job, timeoutMs: number, opts?: JobOptions): Promise<unknown>;
  /** Starts consuming a queue (worker role). */
  process(queue: QueueName, handler: JobHandler, concurrency: number): void;
  ping(): Promise<boolean>;
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

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 200;
