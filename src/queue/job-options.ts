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

export function webhookJobOptions(config: WebhookRetryConfig, inboxId: number, run: WebhookRun = { kind: 'first' }): JobOptions {
  const jobId =
    run.kind === 'replay'
      ? `webhook-${inboxId}-replay-${run.at}`
      : run.kind === 'sweep'
        ? `webhook-${inboxId}-sweep-${run.attempts}`
        : `webhook-${inboxId}`;
  return { jobId, attempts: config.WEBHOOK_ATTEMPTS, backoffMs: config.WEBHOOK_RETRY_BASE_MS };
}

export function notifyJobOptions(notificationId: number): JobOptions {
  return { jobId: `notify-${notificationId}`, attempts: 5, backoffMs: 1_000 };
}

/**
 * Longest time all retries of a webhook job can take, plus a sweep interval of margin: a row
 * still pending after that was lost (or its failure never recorded).
 */
export function webhookRetryHorizonMs(config: WebhookRetryConfig & Pick<Config, 'SWEEP_INTERVAL_MS'>): number {
  return config.WEBHOOK_RETRY_BASE_MS * 2 ** config.WEBHOOK_ATTEMPTS + config.SWEEP_INTERVAL_MS;
}
