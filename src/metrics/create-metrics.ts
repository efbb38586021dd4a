import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MoneyEvents } from '../core/deps.ts';
import type { JobHandler, QueueName } from '../queue/job-queue.ts';

/** Job outcomes as the queue sees them: done, failed but retried later, failed for good. */
export type JobOutcome = 'completed' | 'retry' | 'failed';

/** Stands in for every counter and histogram when collection is off: each call does nothing. */
const OFF = {
  inc() {},
  observe() {},
  startTimer: () => () => 0,
};
/** `make()` when collecting, otherwise the do-nothing stand-in under the same type. */
const collected = <T>(enabled: boolean, make: () => T): T => (enabled ? make() : (OFF as unknown as T));

/**
 * The service's Prometheus metrics, one registry per application context (no module-level
 * registry: two contexts in one process, as in tests, never share counters). Counters and
 * histograms are per process; the queue, inbox and outbox gauges are read from Redis and the
 * database at scrape time, so every process reports the same global value (aggregate with `max`).
 * Names are the same in embedded and production mode.
 *
 * `enabled: false` (METRICS_ENABLED, config.ts) collects nothing on the request and job paths: the
 * counters, histograms and process metrics are not registered and their calls do nothing; the
 * scrape-time gauges stay, as they cost nothing until a scrape.
 */
export function createMetrics(o: { enabled?: boolean } = {}) {
  const enabled = o.enabled ?? true;
  const registry = new Registry();
  if (enabled) collectDefaultMetrics({ register: registry, prefix: 'tracker_process_' });
  const r = { registers: [registry] };
  const metrics = {
    registry,
    enabled,
    httpDuration: collected(
      enabled,
      () =>
        new Histogram({
          ...r,
          name: 'tracker_http_request_duration_seconds',
          help: 'HTTP request duration by route pattern, method and status',
          labelNames: ['method', 'route', 'status'] as const,
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        }),
    ),
    jobs: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_jobs_total',
          help: 'Job runs by queue and outcome (completed, retry, failed)',
          labelNames: ['queue', 'outcome'] as const,
        }),
    ),
    jobDuration: collected(
      enabled,
      () =>
        new Histogram({
          ...r,
          name: 'tracker_job_duration_seconds',
          help: 'Job run duration by queue and outcome',
          labelNames: ['queue', 'outcome'] as const,
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        }),
    ),
    queueJobs: new Gauge({
      ...r,
      name: 'tracker_queue_jobs',
      help: 'Jobs in each queue by state (waiting, active, delayed, failed), read at scrape time',
      labelNames: ['queue', 'state'] as const,
    }),
    webhookInboxRows: new Gauge({
      ...r,
      name: 'tracker_webhook_inbox_rows',
      help: 'Webhook inbox rows still needing attention, by status (pending, failed), read at scrape time',
      labelNames: ['status'] as const,
    }),
    webhookOldestPending: new Gauge({
      ...r,
      name: 'tracker_webhook_inbox_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook inbox row (0 when none)',
    }),
    webhooksReceived: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_webhooks_received_total',
          help: 'Verified webhook deliveries by provider and inbox result (pending, ignored, duplicate)',
          labelNames: ['provider', 'result'] as const,
        }),
    ),
    webhooksRejected: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_webhooks_rejected_total',
          help: 'Webhook deliveries whose signature was rejected, by provider',
          labelNames: ['provider'] as const,
        }),
    ),
    outboxPending: new Gauge({
      ...r,
      name: 'tracker_notification_outbox_pending',
      help: 'Notifications written but not delivered yet, read at scrape time',
    }),
    outboxLag: new Gauge({
      ...r,
      name: 'tracker_notification_outbox_lag_seconds',
      help: 'Age of the oldest undelivered notification (0 when none)',
    }),
    sales: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_sales_total',
          help: 'Live sales recorded, by provider (none for API calls without one) and currency',
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    saleAmount: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_sale_amount_cents_total',
          help: 'Amount of live sales recorded, minor units',
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    commissionAmount: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_commission_amount_cents_total',
          help: 'Commission created on live sales, minor units',
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    refunds: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_refunds_total',
          help: "Refunds applied to live sales, by the sale's provider and currency",
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    refundAmount: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_refund_amount_cents_total',
          help: 'Amount refunded on live sales, minor units',
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    commissionReversed: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_commission_reversed_cents_total',
          help: 'Commission reversed by refunds, minor units',
          labelNames: ['provider', 'currency'] as const,
        }),
    ),
    rateLimited: collected(
      enabled,
      () =>
        new Counter({
          ...r,
          name: 'tracker_rate_limit_rejections_total',
          help: 'Requests answered 429 rate_limited, by limiter (api_key, status, mcp_token, admin_auth, portal_auth, and per client: api_key_failures, click, browser-lead, browser-test, webhook)',
          labelNames: ['limiter'] as const,
        }),
    ),
    scrapeErrors: new Counter({
      ...r,
      name: 'tracker_metrics_scrape_errors_total',
      help: 'Scrape-time reads that failed (the gauges keep their last value)',
      labelNames: ['source'] as const,
    }),
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The money counters fed by the sale and refund use-cases once their transaction committed;
 * undefined when collection is off (the use-cases then report nothing).
 */
export function moneyEventsOf(m: Metrics): MoneyEvents | undefined {
  if (!m.enabled) return undefined;
  return {
    saleRecorded(e) {
      const l = { provider: e.provider ?? 'none', currency: e.currency };
      m.sales.inc(l);
      m.saleAmount.inc(l, e.amountCents);
      if (e.commissionCents) m.commissionAmount.inc(l, e.commissionCents);
    },
    refundApplied(e) {
      const l = { provider: e.provider ?? 'none', currency: e.currency };
      m.refunds.inc(l);
      m.refundAmount.inc(l, e.refundedCents);
      if (e.deductionCents) m.commissionReversed.inc(l, e.deductionCents);
    },
  };
}

/** Wraps a queue's handler to count and time each run by outcome (the same in both queue modes). */
export function instrumentJobHandler(m: Metrics, queue: QueueName, handler: JobHandler): JobHandler {
  if (!m.enabled) return handler;
  return async (job, jc) => {
    const end = m.jobDuration.startTimer({ queue });
    try {
      const out = await handler(job, jc);
      end({ outcome: 'completed' });
      m.jobs.inc({ queue, outcome: 'completed' });
      return out;
    } catch (err) {
      const outcome: JobOutcome = jc.final ? 'failed' : 'retry';
      end({ outcome });
      m.jobs.inc({ queue, outcome });
      throw err;
    }
  };
}
