import type { Config } from '../config.ts';

export type JobOptions = {
  /** Defence in depth only (the database decides); must not contain `:`. */
  jobId?: string;
  attempts?: number;
  /** First retry delay; doubles on each further attempt. */
  backoffMs?: number;
};

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 200;

export type WebhookRetryConfig = Pick<Config, 'WEBHOOK_ATTEMPTS' | 'WEBHOOK_RETRY_BASE_MS'>;

/**
 * Which run of an inbox row a webhook job is. A replay or a sweep of a stuck row gets a fresh job
 * id: the old one may still be held by a failed BullMQ job, which would swallow the new one.
 */
export type WebhookRun = { kind: 'first' } | { kind: 'replay'; at: number } | { kind: 'sweep'; attempts: number };

export function webhookJobOptions(
  config: WebhookRetryConfig,
  inboxId: number,
  run: WebhookRun = { kind: 'first' },
): JobOptions {
  const jobId =
    run.kind === 'replay'
      ? `webhook-${inboxId}-replay-${run.at}`
      : run.kind === 'sweep'
        ? `webhook-${inboxId}-sweep-${run.attempts}`
        : `webhook-${inboxId}`;
  return { jobId, attempts: config.WEBHOOK_ATTEMPTS, backoffMs: config.WEBHOOK_RETRY_BASE_MS };
}

export type NotifyRetryConfig = Pick<Config, 'NOTIFY_ATTEMPTS' | 'NOTIFY_RETRY_BASE_MS'>;

/**
 * The id carries the database nonce (row ids restart when a database is reset under the same
 * queue prefix) and, for an outbox sweep, the sweep number (a failed job keeps its id).
 */
export function notifyJobOptions(
  config: NotifyRetryConfig,
  nonce: string,
  notificationId: number,
  sweep: number | null = null,
): JobOptions {
  return {
    jobId: `notify-${nonce}-${notificationId}${sweep === null ? '' : `-sweep-${sweep}`}`,
    attempts: config.NOTIFY_ATTEMPTS,
    backoffMs: config.NOTIFY_RETRY_BASE_MS,
  };
}

/** Longest time all attempts of a notify job can take, plus a sweep interval of margin. */
export function notifyRetryHorizonMs(config: NotifyRetryConfig & Pick<Config, 'SWEEP_INTERVAL_MS'>): number {
  return config.NOTIFY_RETRY_BASE_MS * 2 ** config.NOTIFY_ATTEMPTS + config.SWEEP_INTERVAL_MS;
}

export type EventRetryConfig = Pick<Config, 'EVENT_ATTEMPTS' | 'EVENT_RETRY_BASE_MS'>;

/** An outbound event delivery's job: like a notification's (nonce; sweep or replay number when re-enqueued). */
export function eventJobOptions(
  config: EventRetryConfig,
  nonce: string,
  deliveryId: number,
  sweep: number | null = null,
): JobOptions {
  return {
    jobId: `event-${nonce}-${deliveryId}${sweep === null ? '' : `-sweep-${sweep}`}`,
    attempts: config.EVENT_ATTEMPTS,
    backoffMs: config.EVENT_RETRY_BASE_MS,
  };
}

/** Longest time all attempts of an event delivery can take, plus a sweep interval of margin. */
export function eventRetryHorizonMs(config: EventRetryConfig & Pick<Config, 'SWEEP_INTERVAL_MS'>): number {
  return config.EVENT_RETRY_BASE_MS * 2 ** config.EVENT_ATTEMPTS + config.SWEEP_INTERVAL_MS;
}

/**
 * Longest time all retries of a webhook job can take, plus a sweep interval of margin: a row
 * still pending after that was lost (or its failure never recorded).
 */
export function webhookRetryHorizonMs(config: WebhookRetryConfig & Pick<Config, 'SWEEP_INTERVAL_MS'>): number {
  return config.WEBHOOK_RETRY_BASE_MS * 2 ** config.WEBHOOK_ATTEMPTS + config.SWEEP_INTERVAL_MS;
}
