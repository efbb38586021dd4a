import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { type Job as BullJob, type JobsOptions, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Job } from '../core/jobs/job.ts';
import type { Logger } from '../core/deps.ts';
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
import { createMicroBatcher } from './micro-batch.ts';

export type BullOptions = { redisUrl: string; prefix: string; log: Logger };

/**
 * BullMQ on Redis. Producers use a connection without an offline queue so that an enqueue during a
 * Redis outage fails at once (the caller answers a retryable 503) instead of hanging.
 */
export function createBullQueue(opts: BullOptions): JobQueue {
  const base: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false };
  const producer = new Redis(opts.redisUrl, { ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  producer.on('error', (err) => opts.log.warn({ err: err.message }, 'redis producer connection error'));
  const connections: Redis[] = [producer];
  const connect = () => {
    const c = new Redis(opts.redisUrl, base);
    c.on('error', (err) => opts.log.warn({ err: err.message }, 'redis connection error'));
    connections.push(c);
    return c;
  };
  const queues = new Map<QueueName, Queue>();
  const events = new Map<QueueName, Promise<QueueEvents>>();
  const workers: Worker[] = [];
  const queue = (name: QueueName) => {
    let q = queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: producer, prefix: opts.prefix });
      queues.set(name, q);
    }
    return q;
  };
  const queueEvents = (name: QueueName) => {
    let e = events.get(name);
    if (!e) {
      e = (async () => {
        // Read the event stream from the Redis server's "now" rather than from BullMQ's default
        // `$` (the stream's end when the first read is issued): an outcome added right after
        // start-up cannot fall between the two, so `addAndWait` needs no extra poll (below).
        const connection = connect();
        let timer: NodeJS.Timeout | undefined;
        try {
          const [seconds] = await Promise.race([
            connection.time(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('redis not reachable')), 5_000);
            }),
          ]);
          const qe = new QueueEvents(name, {
            connection,
            prefix: opts.prefix,
            lastEventId: `${(Number(seconds) - 1) * 1000}-0`,
          });
          await qe.waitUntilReady();
          return qe;
        } catch (err) {
          connections.splice(connections.indexOf(connection), 1);
          connection.disconnect();
          throw err;
        } finally {
          clearTimeout(timer);
        }
      })();
      e.catch(() => events.delete(name));
      events.set(name, e);
    }
    return e;
  };
  // Jobs added in the same turn of the event loop (concurrent requests) go to Redis as one bulk
  // add: one round trip instead of one per job (acknowledgement CPU, `npm run bench`).
  type Added = { name: string; data: Job; opts: JobsOptions };
  const adders = new Map<QueueName, (item: Added) => Promise<BullJob>>();
  const bulkAdd = (name: QueueName) => {
    let add = adders.get(name);
    if (!add) {
      add = createMicroBatcher<Added, BullJob>(
        async (items) => (await queue(name).addBulk(items)).map((j) => ({ ok: true, value: j })),
        { maxSize: 64, lingerMs: 0 },
      );
      adders.set(name, add);
    }
    return add;
  };
  const enqueue = async (
    name: QueueName,
    job: Job,
    o: JobOptions = {},
    removeOnComplete: boolean | { age: number; count: number } = { age: 3600, count: 10_000 },
  ) => {
    try {
      return await bulkAdd(name)({
        name: job.kind,
        data: job,
        opts: {
          jobId: o.jobId,
          attempts: o.attempts ?? DEFAULT_ATTEMPTS,
          backoff: { type: 'exponential', delay: o.backoffMs ?? DEFAULT_BACKOFF_MS },
          removeOnComplete,
          removeOnFail: { age: 7 * 86_400 },
        },
      });
    } catch (err) {
      throw new EnqueueError(err);
    }
  };

  return {
    kind: 'bullmq',
    async add(name, job, o) {
      const added = await enqueue(name, job, o);
      return added.id ?? '';
    },
    async addAndWait(name, job, timeoutMs) {
      let ev: QueueEvents;
      try {
        ev = await queueEvents(name);
      } catch (err) {
        throw new EnqueueError(err);
      }
      // API calls: listen under an id of our own before adding, so the outcome cannot be missed
      // and no state poll is needed; the job is removed once its outcome is published (the caller
      // got it, the database holds the record). Two Redis calls fewer per request (bench).
      const jobId = randomUUID();
      // Per-job events (`completed:<id>`) are emitted untyped by QueueEvents.
      const bus = ev as unknown as EventEmitter;
      return new Promise<unknown>((resolve, reject) => {
        const settle = (fn: () => void) => {
          clearTimeout(timer);
          bus.off(`completed:${jobId}`, onCompleted);
          bus.off(`failed:${jobId}`, onFailed);
          fn();
        };
        const onCompleted = (e: { returnvalue: unknown }) => settle(() => resolve(e.returnvalue));
        const onFailed = (e: { failedReason: string }) => settle(() => reject(new Error(e.failedReason)));
        const timer = setTimeout(() => settle(() => reject(new JobTimeoutError(timeoutMs))), timeoutMs);
        bus.on(`completed:${jobId}`, onCompleted);
        bus.on(`failed:${jobId}`, onFailed);
        enqueue(name, job, { jobId }, true).catch((err) => settle(() => reject(err)));
      });
    },
    process(name, handler: JobHandler, concurrency) {
      const w = new Worker(
        name,
        async (j) => {
          const attempts = j.opts.attempts ?? 1;
          try {
            return await handler(j.data, { attempt: j.attemptsMade + 1, final: j.attemptsMade + 1 >= attempts });
          } catch (err) {
            // BullMQ's own marker for "fail now, no retry".
            if (err instanceof UnrecoverableJobError) throw new UnrecoverableError(err.message);
            throw err;
          }
        },
        { connection: connect(), prefix: opts.prefix, concurrency, stalledInterval: 5_000, maxStalledCount: 3 },
      );
      w.on('error', (err) => opts.log.warn({ queue: name, err: err.message }, 'worker error'));
      w.on('failed', (j, err) =>
        opts.log.warn({ queue: name, jobId: j?.id, attempt: j?.attemptsMade, err: err.message }, 'job attempt failed'),
      );
      workers.push(w);
    },
    async ping() {
      try {
        return (await producer.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async counts(name) {
      const c = await queue(name).getJobCounts('waiting', 'active', 'delayed', 'failed');
      return { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
    },
    async consumers() {
      const counts = await Promise.all(QUEUE_NAMES.map((n) => queue(n).getWorkersCount()));
      return Object.fromEntries(QUEUE_NAMES.map((n, i) => [n, counts[i]])) as Record<QueueName, number>;
    },
    async closeWorkers() {
      await Promise.all(workers.map((w) => w.close()));
    },
    async close() {
      await this.closeWorkers();
      await Promise.all(
        [...events.values()].map((e) =>
          e.then(
            (q) => q.close(),
            () => {},
          ),
        ),
      );
      await Promise.all([...queues.values()].map((q) => q.close()));
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
