import { deleteStaleSessions } from '../core/sessions.ts';
import type { AppContext } from '../app-context.ts';
import type { Job, TrackJob } from '../core/jobs.ts';
import { AppError, type SerializedAppError } from '../core/errors.ts';
import { recordSale } from '../core/record-sale.ts';
import { applyRefund } from '../core/apply-refund.ts';
import { bindLead } from '../core/bind-lead.ts';
import { recordClick } from '../core/record-click.ts';
import { processWebhookEvent, markWebhookFailed, findStalePendingWebhooks } from '../core/webhook-inbox.ts';
import { deliverNotification, findUndeliveredNotifications } from '../core/deliver-notification.ts';
import { approveDueCommissions } from '../core/approve-commission.ts';
import type { JobContext, QueueName } from './job-queue.ts';
import { isDataError } from '../core/data-error.ts';
import { instrumentJobHandler } from '../metrics/create-metrics.ts';

/** What a track job returns through the queue: the use-case result, or an expected error. */
export type TrackOutcome = { ok: true; result: unknown } | { ok: false; error: SerializedAppError };

/** Runs one API job's use-case. Expected errors are results (never retried); others throw. */
export async function runTrackJob(ctx: AppContext, job: TrackJob): Promise<TrackOutcome> {
  const deps = ctx.deps();
  try {
    switch (job.kind) {
      case 'sale': return { ok: true, result: await recordSale(deps, job) };
      case 'lead': return { ok: true, result: await bindLead(deps, job) };
      case 'click': return { ok: true, result: await recordClick(deps, job) };
      case 'refund': {
        const result = await applyRefund(deps, job);
        if (result.kind === 'applied') await enqueueNotifications(ctx, result.notificationIds);
        return { ok: true, result };
      }
    }
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err.toJSON() };
    if (isDataError(err)) {
      // The request holds a value PostgreSQL refuses: the caller's error, the same on every
      // attempt, so an answer (400) rather than a retry and a 503 "retrying is safe".
      ctx.log.warn({ kind: job.kind, err: (err as Error).message }, 'job input cannot be stored');
      return { ok: false, error: new AppError('invalid_request', 'A value in this request cannot be stored').toJSON() };
    }
    throw err;
  }
}

/** Notifications go out after the refund committed; a failure here never changes the response. */
async function enqueueNotifications(ctx: AppContext, ids: number[]): Promise<void> {
  for (const id of ids) {
    await ctx.queue.add('notify', { kind: 'notify', notificationId: id }, { jobId: `notify-${id}`, attempts: 5, backoffMs: 1_000 })
      .catch((err) => ctx.log.warn({ notificationId: id, err: err.message }, 'notification not enqueued; the outbox sweeper will deliver it'));
  }
}

export function webhookJobOptions(ctx: AppContext, inboxId: number, replay = false) {
  return {
    jobId: replay ? `webhook-${inboxId}-replay-${Date.now()}` : `webhook-${inboxId}`,
    attempts: ctx.config.WEBHOOK_ATTEMPTS,
    backoffMs: ctx.config.WEBHOOK_RETRY_BASE_MS,
  };
}

async function handle(ctx: AppContext, job: Job, jc: JobContext): Promise<unknown> {
  switch (job.kind) {
    case 'webhook':
      try {
        const res = await processWebhookEvent(ctx.deps(), job.inboxId);
        for (const o of res.outcome as Array<{ kind?: string; notificationIds?: number[] }>) {
          if (o?.kind === 'applied' && o.notificationIds) await enqueueNotifications(ctx, o.notificationIds);
        }
        if (res.notificationIds?.length) await enqueueNotifications(ctx, res.notificationIds);
        return res;
      } catch (err) {
        if (jc.final) {
          await markWebhookFailed(ctx.deps(), job.inboxId, (err as Error).message);
          ctx.log.error({ inboxId: job.inboxId, attempts: jc.attempt, err: (err as Error).message }, 'webhook event failed after all retries');
        }
        throw err;
      }
    case 'notify':
      return deliverNotification(ctx.deps(), ctx.notificationSender, job.notificationId);
    default:
      return runTrackJob(ctx, job);
  }
}

/**
 * Worker role: consumes the three queues and runs the sweepers (inbox rows acknowledged but never
 * enqueued, notifications never delivered, commissions past their hold period). Returns a stopper
 * that lets running jobs finish.
 */
export function startWorkers(ctx: AppContext): { stop(): Promise<void> } {
  const c = ctx.config.WORKER_CONCURRENCY;
  const handler = (queue: QueueName) => instrumentJobHandler(ctx.metrics, queue, (job, jc) => handle(ctx, job, jc));
  ctx.queue.process('track', handler('track'), c);
  ctx.queue.process('webhook', handler('webhook'), Math.max(1, Math.ceil(c / 2)));
  ctx.queue.process('notify', handler('notify'), 4);
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const now = ctx.clock().getTime();
      const cutoff = new Date(now - ctx.config.SWEEP_INTERVAL_MS);
      // Longest time all retries of a webhook job can take, plus a sweep interval of margin.
      const retryHorizon = ctx.config.WEBHOOK_RETRY_BASE_MS * 2 ** ctx.config.WEBHOOK_ATTEMPTS + ctx.config.SWEEP_INTERVAL_MS;
      for (const row of await findStalePendingWebhooks(ctx.deps(), { neverRunBefore: cutoff, stuckBefore: new Date(now - retryHorizon) })) {
        // A stuck row gets a fresh job id: the old one may still be held by a failed BullMQ job.
        const opts = webhookJobOptions(ctx, row.id);
        if (row.attempts > 0) opts.jobId = `webhook-${row.id}-sweep-${row.attempts}`;
        await ctx.queue.add('webhook', { kind: 'webhook', inboxId: row.id }, opts);
      }
      await enqueueNotifications(ctx, await findUndeliveredNotifications(ctx.deps(), cutoff));
      await approveDueCommissions(ctx.deps());
      await deleteStaleSessions(ctx.deps());
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'sweep failed; will retry next interval');
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(sweep, ctx.config.SWEEP_INTERVAL_MS);
  timer.unref();
  ctx.log.info({ concurrency: c, queue: ctx.queue.kind }, 'workers started');
  return {
    async stop() {
      clearInterval(timer);
      while (sweeping) await new Promise((r) => setTimeout(r, 20));
      await ctx.queue.closeWorkers();
    },
  };
}
