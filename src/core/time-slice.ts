import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Cooperative scheduling for the long loops of reports (the rules preview's replay, the rollup
 * check, a CSV export's pages): they run in the process that also answers tracking calls, so they
 * work in slices of `sliceMs` and rest as long after each one. Every callback waiting meanwhile (a
 * click's answer, a job's result) runs before the report's next slice, so a waiting call loses at
 * most one slice to it, and the report never takes more than about half of the process's time (and
 * of the database's, whose reads count in the slice), whatever else is running on the host.
 */
export type TimeSlice = {
  /** Starts a slice now (after a wait that was not the report's work, e.g. a client reading a download). */
  begin(): void;
  /** Whether this slice is used up: the loop should `await next()` before going on. */
  spent(): boolean;
  /**
   * Rests as long as the slice ran (at least 1 ms, at most `MAX_REST_MS`) and starts the next;
   * throws the signal's reason once it is aborted (the report's time limit), so the report stops
   * at its next step.
   */
  next(): Promise<void>;
};

export const REPORT_SLICE_MS = 4;
const MAX_REST_MS = 25;

export function createTimeSlice(signal?: AbortSignal, sliceMs = REPORT_SLICE_MS): TimeSlice {
  let started = performance.now();
  return {
    begin() {
      started = performance.now();
    },
    spent: () => performance.now() - started >= sliceMs,
    async next() {
      signal?.throwIfAborted();
      await sleep(Math.min(MAX_REST_MS, Math.max(1, performance.now() - started)));
      signal?.throwIfAborted();
      started = performance.now();
    },
  };
}
