import { AppError } from '../core/shared/errors.ts';
import type { TrackJob, TrackJobKind } from '../core/jobs/job.ts';
import { type JobResults, parseTrackOutcome } from '../core/job-results.ts';
import type { JobQueue } from './job-queue.ts';

/**
 * Enqueues a track job, waits for its outcome and returns the result typed by the job's kind; an
 * expected error comes back as the AppError it was. A result that does not parse (a worker of
 * another release answered) is an internal error, never a silently wrong response.
 */
export async function enqueueAndWait<K extends TrackJobKind>(
  queue: JobQueue,
  job: TrackJob & { kind: K },
  timeoutMs: number,
): Promise<JobResults[K]> {
  const out = parseTrackOutcome<K>(job.kind, await queue.addAndWait('track', job, timeoutMs));
  if (!out.ok) throw new Error(`malformed ${job.kind} job result: ${out.reason}`);
  if (!out.value.ok) throw AppError.from(out.value.error);
  return out.value.result;
}
