import { applyRefund } from '../core/apply-refund.ts';
import { bindLead } from '../core/bind-lead.ts';
import { isDataError } from '../core/data-error.ts';
import { AppError } from '../core/errors.ts';
import { type TrackJob, trackJobSchema } from '../core/jobs/job.ts';
import type { JobResults, TrackOutcome } from '../core/jobs/job-results.ts';
import { recordClick } from '../core/record-click.ts';
import { recordSale } from '../core/record-sale.ts';
import { recordTestEvent } from '../core/record-test-event.ts';
import type { JobHandler } from '../queue/job-queue.ts';
import { enqueueNotifications } from './enqueue-notifications.ts';
import { readJob, type WorkerContext } from './worker-context.ts';

/** The `track` queue: API calls awaited by HTTP. Expected errors are outcomes (never retried); others throw. */
export function createTrackProcessor(w: WorkerContext): JobHandler {
  return async (data): Promise<TrackOutcome> => {
    const job = readJob(w, 'track', trackJobSchema, data);
    try {
      return { ok: true, result: await runTrackJob(w, job) };
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

/** Runs the one use-case of a track job. */
async function runTrackJob(w: WorkerContext, job: TrackJob): Promise<JobResults[TrackJob['kind']]> {
  const deps = w.deps();
  switch (job.kind) {
    case 'sale':
      return recordSale(deps, job);
    case 'refund': {
      const result = await applyRefund(deps, job);
      if (result.kind === 'applied') await enqueueNotifications(w, result.notificationIds);
      return result;
    }
    case 'lead':
      return bindLead(deps, job);
    case 'click':
      return recordClick(deps, job);
    case 'test_event':
      return recordTestEvent(deps, job);
  }
}
