import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cooperative scheduling for the long loops of reports (the rules preview's replay, the rollup
 * check): they run on the process that also answers tracking calls, so they hand the event loop
 * back every `sliceMs` and every I/O callback waiting meanwhile (a click's answer, a job's result)
 * runs before the report's next slice. The report then costs a waiting call at most one slice,
 * instead of the whole report.
 */
export type TimeSlice = {
  /** Whether this slice is used up: the loop should `await next()` before going on. */
  spent(): boolean;
  /**
   * Yields to the event loop and starts a new slice; throws the signal's reason once it is aborted
   * (the report's time limit), so the report stops at its next step.
   */
  next(): Promise<void>;
};

export const REPORT_SLICE_MS = 5;

export function createTimeSlice(signal?: AbortSignal, sliceMs = REPORT_SLICE_MS): TimeSlice {
  let started = performance.now();
  return {
    spent: () => performance.now() - started >= sliceMs,
    async next() {
      signal?.throwIfAborted();
      await nextTurn();
      signal?.throwIfAborted();
      started = performance.now();
    },
  };
}
