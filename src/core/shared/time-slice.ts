import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Cooperative scheduling for the long loops of reports (the rules preview's replay, the rollup
 * check, a CSV export's pages): they run in the process that also answers tracking calls, so they
 * work in slices of `sliceMs` and rest twice as long after each one. Every callback waiting meanwhile
 * (a click's answer, a job's result) runs before the report's next slice, so a waiting call loses at
 * most one slice to it, and the report never takes more than about a third of the process's time
 * (and of the database's, whose reads count in the slice), whatever else is running on the host.
 * (Resting as long as the slice, half the process, left click p99 at 2.4× idle beside previews on
 * a quiet 2-core host; twice as long brought it to 1.8–2.4×: docs/performance.md.)
 */
export type TimeSlice = {
  /** Starts a slice now (after a wait that was not the report's work, e.g. a client reading a download). */
  begin(): void;
  /** Whether this slice is used up: the loop should `await next()` before going on. */
  spent(): boolean;
  /**
   * Rests twice as long as the slice ran (at least 1 ms, at most `MAX_REST_MS`) and starts the next;
   * throws the signal's reason once it is aborted (the report's time limit), so the report stops
   * at its next step.
   */
  next(): Promise<void>;
};

export const REPORT_SLICE_MS = 4;
const MAX_REST_MS = 25;
const REST_FACTOR = 2;

export function createTimeSlice(signal?: AbortSignal, sliceMs = REPORT_SLICE_MS): TimeSlice {
  let started = performance.now();
  return {
    begin() {
      started = performance.now();
    },
    spent: () => performance.now() - started >= sliceMs,
    async next() {
      signal?.throwIfAborted();
      await sleep(Math.min(MAX_REST_MS, Math.max(1, REST_FACTOR * (performance.now() - started))));
      signal?.throwIfAborted();
      started = performance.now();
    },
  };
}
