import { AppError } from '../core/shared/errors.ts';

/**
 * Heavy reports (rules previews, CSV exports, rollup checks, partner statements) run in the HTTP
 * process beside the tracking calls: one at a time per key (a kind of report of one program), each
 * within a time limit. Per process: what a report takes is this process's event loop and
 * connection pool, so that is what is shared out (docs/exports.md: Reports beside tracking).
 */
export type ReportGate = {
  /**
   * `label` names the report and its scope in the errors ("A rules preview of this program").
   * Takes the slot of `key` for a report that outlives the handler (a streamed export), else 429
   * `rate_limited`. `signal` is aborted at the time limit with the 503 to answer; the holder calls
   * `release` once the report has ended (idempotent).
   */
  acquire(key: string, label: string, limitMs: number): ReportSlot;
  /**
   * Runs `work` in the slot of `key`: at once, else 429 `rate_limited`; or, with `wait`, after
   * those before it (first come, first served; the wait counts in the limit). At the limit the
   * call answers 503 `service_unavailable` even if the work is still inside one statement; its
   * signal is aborted, and the slot stays taken until the work has stopped.
   */
  run<T>(
    key: string,
    label: string,
    o: { limitMs: number; wait?: boolean },
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T>;
};

export type ReportSlot = { signal: AbortSignal; release(): void };

/** What a client refused (429) or stopped (503) is told to wait before trying again. */
export const REPORT_RETRY_SECONDS = 5;

export function createReportGate(): ReportGate {
  // A key present is a slot taken; its list holds the calls waiting for it, first come first.
  const slots = new Map<string, Array<() => void>>();
  const take = (key: string): boolean => {
    if (slots.has(key)) return false;
    slots.set(key, []);
    return true;
  };
  const giveBack = (key: string) => {
    const next = slots.get(key)?.shift();
    if (next) next();
    else slots.delete(key);
  };
  const busy = (label: string) =>
    new AppError(
      'rate_limited',
      `${label} is already running; one runs at a time, retry once it has finished`,
      {},
      { retry_after_seconds: REPORT_RETRY_SECONDS },
    );
  const timeLimit = (label: string, limitMs: number) => {
    const seconds = Math.round(limitMs / 100) / 10;
    return new AppError(
      'service_unavailable',
      `${label} did not finish within its time limit of ${seconds} s and was stopped; a shorter period finishes sooner`,
      {},
      { retry_after_seconds: REPORT_RETRY_SECONDS, limit_seconds: seconds },
    );
  };
  /** A signal aborted with the 503 at the limit, and how to stop its timer. */
  const limit = (label: string, limitMs: number) => {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(timeLimit(label, limitMs)), limitMs);
    timer.unref();
    return { signal: ctl.signal, clear: () => clearTimeout(timer) };
  };
  const turn = (key: string, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const waiting = slots.get(key)!;
      const go = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        reject(signal.reason);
      };
      waiting.push(go);
      signal.addEventListener('abort', stop, { once: true });
    });

  return {
    acquire(key, label, limitMs) {
      if (!take(key)) throw busy(label);
      const { signal, clear } = limit(label, limitMs);
      let held = true;
      return {
        signal,
        release() {
          if (!held) return;
          held = false;
          clear();
          giveBack(key);
        },
      };
    },
    async run(key, label, o, work) {
      const { signal, clear } = limit(label, o.limitMs);
      if (!take(key)) {
        if (!o.wait) {
          clear();
          throw busy(label);
        }
        await turn(key, signal).catch((err: unknown) => {
          clear();
          throw err;
        });
      }
      const task = Promise.resolve()
        .then(() => work(signal))
        .finally(() => {
          clear();
          giveBack(key);
        });
      // Settled by whichever comes first; the other's outcome is dropped (the work's error after
      // the limit is the abort it was stopped with).
      task.catch(() => {});
      const stopped = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      stopped.catch(() => {});
      return Promise.race([task, stopped]);
    },
  };
}
