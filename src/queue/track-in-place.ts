import pTimeout from 'p-timeout';
import type { Logger } from '../core/deps.ts';
import { JobTimeoutError, UnrecoverableJobError, type JobHandler, type JobQueue } from './job-queue.ts';

/**
 * API calls run in the process that received them when it also consumes the `track` queue (the
 * `serve` role): the job's handler runs in place, at most the queue's concurrency at a time (a
 * call waits its turn here, in arrival order), with no round trip through Redis. The queue keeps
 * what must be retried: a job whose handler throws is enqueued and waited for with the time left,
 * as if it had not run, and a process with no `track` worker (`http`) enqueues every job.
 * Expected errors are outcomes, not throws (track-processor.ts), so only unexpected and temporary
 * failures go to the queue; each use-case is idempotent on its key, as for any retry.
 * Why and the measurements: docs/performance.md, "Sales run where they are received".
 */
export function runTrackInPlace(queue: JobQueue, log: Logger): JobQueue {
  let local: { handler: JobHandler; slots: number } | undefined;
  let running = 0;
  let closing = false;
  const turns: Array<() => void> = [];
  let idle: (() => void) | undefined;
  const release = () => {
    running--;
    const next = turns.shift();
    if (next) next();
    else if (running === 0) idle?.();
  };
  /** Resolves true once a slot is this call's (counted as running), false if the deadline came first. */
  const takeSlot = (slots: number, deadline: number): Promise<boolean> => {
    if (running < slots) {
      running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const turn = () => {
        clearTimeout(timer);
        running++;
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          turns.splice(turns.indexOf(turn), 1);
          resolve(false);
        },
        Math.max(0, deadline - performance.now()),
      );
      turns.push(turn);
    });
  };
  return {
    ...queue,
    process(name, handler, concurrency) {
      if (name === 'track') local = { handler, slots: concurrency };
      queue.process(name, handler, concurrency);
    },
    async addAndWait(name, job, timeoutMs) {
      if (!local || closing) return queue.addAndWait(name, job, timeoutMs);
      const deadline = performance.now() + timeoutMs;
      if (!(await takeSlot(local.slots, deadline))) throw new JobTimeoutError(timeoutMs);
      // Past the deadline the caller is answered and the job finishes on its own, holding its slot.
      const run = local.handler(job, { attempt: 1, final: false }).finally(release);
      try {
        return await pTimeout(run, {
          milliseconds: Math.max(0, deadline - performance.now()),
          message: new JobTimeoutError(timeoutMs),
        });
      } catch (err) {
        if (err instanceof JobTimeoutError || err instanceof UnrecoverableJobError) throw err;
        log.warn(
          { kind: job.kind, err: err instanceof Error ? err.message : String(err) },
          'API call failed in place: retried through the queue',
        );
        return queue.addAndWait(name, job, Math.max(1, deadline - performance.now()));
      }
    },
    /** Stops running calls in place (later ones go through the queue) and waits for those running. */
    async closeWorkers() {
      closing = true;
      if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
      await queue.closeWorkers();
    },
    async close() {
      await this.closeWorkers();
      await queue.close();
    },
  };
}
