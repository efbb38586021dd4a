import { applyRefund } from '../core/refunds/apply-refund.ts';
import { bindLead } from '../core/attribution/bind-lead.ts';
import { isDataError } from '../core/db/data-error.ts';
import type { CoreDeps } from '../core/deps.ts';
import { AppError, RetryableError } from '../core/shared/errors.ts';
import { type TrackJob, trackJobSchema } from '../core/jobs/job.ts';
import type { ClickJob } from '../core/jobs/click-job.ts';
import type { JobResults, TrackOutcome } from '../core/job-results.ts';
import { type ClickResult, recordClicks } from '../core/attribution/record-click.ts';
import { recordSale } from '../core/sales/record-sale.ts';
import { recordTestEvent } from '../core/sales/record-test-event.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { createMicroBatcher, type MicroBatchOptions } from '../core/shared/micro-batch.ts';
import { createAfterCommitDelivery } from './enqueue-notifications.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/**
 * Click jobs running at the same time are recorded together (one partner read, one insert); each
 * keeps its own answer. Clicks are the highest-volume API call (`npm run bench`).
 */
export const CLICK_BATCH: MicroBatchOptions = { maxSize: 16, lingerMs: 1 };

/** The `track` queue: API calls awaited by HTTP. Expected errors are outcomes (never retried); others throw. */
export function createTrackProcessor(w: WorkerContext, clickBatch: MicroBatchOptions = CLICK_BATCH): JobHandler {
  const recordClick = createMicroBatcher<ClickJob, ClickResult>((jobs) => recordClicks(w.deps(), jobs), clickBatch);
  const deliverAfterCommit = createAfterCommitDelivery(w);
  return async (data): Promise<TrackOutcome> => {
    const job = readJob(w, 'track', trackJobSchema, data);
    try {
      return {
        ok: true,
        result: job.kind === 'click' ? await recordClick(job) : await runTrackJob(w, job, deliverAfterCommit),
      };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, error: err.toJSON() };
      if (isDataError(err)) {
        // The request holds a value PostgreSQL refuses: the caller's error, the same on every
        // attempt, so an answer (400) rather than a retry and a 503 "retrying is safe".
        w.log.warn(
          { kind: job.kind, err: err instanceof Error ? err.message : String(err) },
          'job input cannot be stored',
        );
        return {
          ok: false,
          error: new AppError('invalid_request', 'A value in this request cannot be stored').toJSON(),
        };
      }
      throw err;
    }
  };
}

/** Runs the one use-case of a track job (clicks are batched above). */
async function runTrackJob(
  w: WorkerContext,
  job: Exclude<TrackJob, ClickJob>,
  deliverAfterCommit: (ids: number[]) => void,
): Promise<JobResults[TrackJob['kind']]> {
  const result = await runUseCase(w.deps(), job, deliverAfterCommit);
  // Outbound events the use-case wrote (its `deliveryIds`) are enqueued once it returned
  // (committed), never awaited by the caller's answer.
  const deliveryIds = 'deliveryIds' in result ? result.deliveryIds : undefined;
  if (deliveryIds?.length) w.background.start(enqueueEventDeliveries(w, deliveryIds));
  return result;
}

async function runUseCase(
  deps: CoreDeps,
  job: Exclude<TrackJob, ClickJob>,
  deliverAfterCommit: (ids: number[]) => void,
): Promise<JobResults[TrackJob['kind']]> {
  switch (job.kind) {
    case 'sale': {
      const result = await recordSale(deps, job);
      if (result.kind === 'attributed' && result.notificationIds) deliverAfterCommit(result.notificationIds);
      return result;
    }
    case 'refund': {
      const result = await applyRefund(deps, job);
      // Only a provider refund can come before its sale: retried by the queue until it is recorded.
      if (result.kind === 'sale_not_recorded') throw new RetryableError(result.message);
      // Delivered from here, not by a second job: the notify queue only retries a failed delivery.
      if (result.kind === 'applied') deliverAfterCommit(result.notificationIds);
      return result;
    }
    case 'lead':
      return bindLead(deps, job);
    case 'test_event':
      return recordTestEvent(deps, job);
  }
}
