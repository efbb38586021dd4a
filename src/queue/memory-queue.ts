import { AsyncLocalStorage } from 'node:async_hooks';
import type { Job } from '../core/jobs/job.ts';
import { DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS, type JobOptions } from './job-options.ts';
import {
  EnqueueError,
  JobTimeoutError,
  QUEUE_NAMES,
  UnrecoverableJobError,
  type JobHandler,
  type JobQueue,
  type QueueName,
} from './job-queue.ts';

type Entry = {
  id: string;
  job: Job;
  attempts: number;
  backoffMs: number;
  attempt: number;
  done: Promise<unknown>;
  settle: (ok: boolean, v: unknown) => void;
};
type Lane = {
  handler?: JobHandler;
  concurrency: number;
  running: number;
  ready: Entry[];
  delayed: number;
  failed: number;
};

/**
 * In-process queue for embedded mode: same contract and retry semantics as the BullMQ one
 * (attempts, exponential backoff, jobId de-duplication while known). Jobs live in memory only:
 * on shutdown it finishes the running jobs and those ready to run; a retry still waiting for its
 * backoff is dropped (failed with a message saying so), since waiting for it could take longer
 * than any shutdown may: webhooks and notifications stay pending in their inbox and outbox rows,
 * which the sweepers enqueue again after the next start.
 */
export function createMemoryQueue(): JobQueue {
  // Jobs run in the queue's own async context, not in the one of whoever enqueued them, as they
  // would in a BullMQ worker process: a request's scope (its database bound, core/db-bound.ts)
  // neither follows its job nor the job's retries, which may run long after the request ended.
  const inQueueContext = AsyncLocalStorage.snapshot();
  const lanes = new Map<QueueName, Lane>();
  const known = new Map<string, Entry>();
  const timers = new Set<NodeJS.Timeout>();
  /** Retries waiting for their backoff, with their job and lane (dropped on close). */
  const retries = new Map<NodeJS.Timeout, { entry: Entry; lane: Lane }>();
  let seq = 0;
  let closed = false;
  let idle: (() => void) | null = null;

  const lane = (name: QueueName) => {
    let l = lanes.get(name);
    if (!l) {
      l = { concurrency: 1, running: 0, ready: [], delayed: 0, failed: 0 };
      lanes.set(name, l);
    }
    return l;
  };
  const busy = () =>
    timers.size > 0 || [...lanes.values()].some((l) => l.running > 0 || (l.handler && l.ready.length > 0));

  const pump = (name: QueueName) => {
    const l = lane(name);
    while (l.handler && l.running < l.concurrency && l.ready.length) {
      const e = l.ready.shift();
      if (!e) break;
      l.running++;
      e.attempt++;
      const final = e.attempt >= e.attempts;
      inQueueContext(l.handler, e.job, { attempt: e.attempt, final })
        .then(
          (v) => {
            e.settle(true, v);
            forget(e);
          },
          (err) => {
            if (final || closed || err instanceof UnrecoverableJobError) {
              l.failed++;
              e.settle(false, err);
              forget(e);
              return;
            }
            l.delayed++;
            const t = setTimeout(
              () => {
                retries.delete(t);
                l.delayed--;
                l.ready.push(e);
                pump(name);
              },
              e.backoffMs * 2 ** (e.attempt - 1),
            );
            retries.set(t, { entry: e, lane: l });
          },
        )
        .finally(() => {
          l.running--;
          pump(name);
          if (idle && !busy()) idle();
        });
    }
  };
  // Completed ids are remembered briefly, like BullMQ's removeOnComplete window.
  const forget = (e: Entry) => {
    const t = setTimeout(() => {
      timers.delete(t);
      known.delete(e.id);
      if (idle && !busy()) idle();
    }, 0);
    timers.add(t);
  };

  const enqueue = (name: QueueName, job: Job, opts: JobOptions = {}): Entry => {
    if (closed) throw new EnqueueError(new Error('queue is closing'));
    const existing = opts.jobId ? known.get(opts.jobId) : undefined;
    if (existing) return existing;
    let settle!: Entry['settle'];
    const done = new Promise<unknown>((resolve, reject) => {
      settle = (ok, v) => (ok ? resolve(v) : reject(v));
    });
    done.catch(() => {});
    const e: Entry = {
      id: opts.jobId ?? `m${++seq}`,
      job,
      attempts: opts.attempts ?? DEFAULT_ATTEMPTS,
      backoffMs: opts.backoffMs ?? DEFAULT_BACKOFF_MS,
      attempt: 0,
      done,
      settle,
    };
    known.set(e.id, e);
    lane(name).ready.push(e);
    queueMicrotask(() => pump(name));
    return e;
  };

  return {
    kind: 'memory',
    async add(name, job, opts) {
      return enqueue(name, job, opts).id;
    },
    async addAndWait(name, job, timeoutMs) {
      const e = enqueue(name, job);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new JobTimeoutError(timeoutMs)), timeoutMs);
      });
      try {
        return await Promise.race([e.done, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    process(name, handler, concurrency) {
      const l = lane(name);
      l.handler = handler;
      l.concurrency = Math.max(1, concurrency);
      pump(name);
    },
    onReconnect() {
      // In-process: never disconnected.
    },
    async ping() {
      return !closed;
    },
    // `failed` counts final failures since start: this queue keeps no failed jobs around.
    async counts(name) {
      const l = lane(name);
      return { waiting: l.ready.length, active: l.running, delayed: l.delayed, failed: l.failed };
    },
    async consumers() {
      return Object.fromEntries(QUEUE_NAMES.map((n) => [n, !closed && lane(n).handler ? 1 : 0])) as Record<
        QueueName,
        number
      >;
    },
    async closeWorkers() {
      closed = true;
      for (const [t, { entry, lane: l }] of retries) {
        clearTimeout(t);
        l.delayed--;
        l.failed++;
        entry.settle(
          false,
          new Error('the queue stopped before this retry ran; its inbox or outbox row stays pending'),
        );
      }
      retries.clear();
      if (busy())
        await new Promise<void>((resolve) => {
          idle = resolve;
        });
    },
    async close() {
      await this.closeWorkers();
      for (const t of timers) clearTimeout(t);
      for (const t of retries.keys()) clearTimeout(t);
    },
  };
}
