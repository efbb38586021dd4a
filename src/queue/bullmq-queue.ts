import { randomUUID } from 'node:crypto';
import { type Job as BullJob, type JobsOptions, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { connectRedis, type RedisTarget } from './redis-connection.ts';
import pTimeout from 'p-timeout';
import type { Job } from '../core/jobs/job.ts';
import type { Logger } from '../core/deps.ts';
import { DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS, type JobOptions } from './job-options.ts';
import {
  EnqueueError,
  JobTimeoutError,
  JobUnavailableError,
  QUEUE_NAMES,
  UnrecoverableJobError,
  type JobHandler,
  type JobQueue,
  type QueueName,
} from './job-queue.ts';
import { createMicroBatcher } from '../core/shared/micro-batch.ts';
import { isDatabaseTimeout, isDatabaseUnavailable } from '../core/db/data-error.ts';

/** Id of a job a process waits for (`addAndWait`): `<that process's instance>.<uuid>`. */
const REPLY_ID = /^([0-9a-f]{32})\./;

export type BullOptions = {
  redisUrl: string;
  sentinels?: RedisTarget['sentinels'];
  sentinelName?: string;
  prefix: string;
  log: Logger;
};

/**
 * How long a command on a non-blocking connection (the producer, the rate limiter's) may wait for
 * Redis's answer before it fails. A hung Redis (a network partition, a stopped server) keeps the
 * connection open and sends no error, so without it a command would wait as long as the hang.
 * Never set on the workers' connections: their blocking commands wait by design (BullMQ).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * BullMQ on Redis. Producers use a connection without an offline queue so that an enqueue during a
 * Redis outage fails at once (the caller answers a retryable 503) instead of hanging, and with a
 * command timeout so that one during a hang fails within REDIS_COMMAND_TIMEOUT_MS.
 */
export function createBullQueue(opts: BullOptions): JobQueue {
  const base: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false };
  const target: RedisTarget = { url: opts.redisUrl, sentinels: opts.sentinels, sentinelName: opts.sentinelName };
  const producer = connectRedis(target, {
    ...base,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  producer.on('error', (err) => opts.log.warn({ err: err.message }, 'redis producer connection error'));
  // The producer's connection lost and regained: what could not be enqueued meanwhile can be now.
  const reconnectListeners: Array<() => void> = [];
  let lost = false;
  producer.on('close', () => {
    lost = true;
  });
  producer.on('ready', () => {
    if (!lost) return;
    lost = false;
    opts.log.info({}, 'redis producer connection back');
    for (const listener of reconnectListeners) listener();
  });
  const connections: Redis[] = [producer];
  const connect = () => {
    const c = connectRedis(target, base);
    c.on('error', (err) => opts.log.warn({ err: err.message }, 'redis connection error'));
    connections.push(c);
    return c;
  };
  const queues = new Map<QueueName, Queue>();
  const workers: Worker[] = [];
  let closed = false;
  const queue = (name: QueueName) => {
    let q = queues.get(name);
    if (!q) {
      // A Queue made now would wait on a connection that has quit: refuse, as during an outage.
      if (closed) throw new Error('the queue is closed (this process is stopping)');
      q = new Queue(name, { connection: producer, prefix: opts.prefix });
      queues.set(name, q);
    }
    return q;
  };
  // API calls get their job's outcome as a reply addressed to the process that waits for it: the
  // job id names that process (`<instance>.<uuid>`). A worker in the same process hands the outcome
  // over in memory once BullMQ recorded the job finished; a worker elsewhere publishes it on the
  // waiting process's channel. No event stream is read per job (see docs/performance.md).
  const instance = randomUUID().replaceAll('-', '');
  const replyChannel = (inst: string) => `${opts.prefix}:track-reply:${inst}`;
  type Waiter = { resolve: (v: unknown) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };
  const waiters = new Map<string, Waiter>();
  /** The call waiting for job `id`, if it still waits: no longer waiting from now on. */
  const takeWaiter = (id: string) => {
    const w = waiters.get(id);
    if (w) {
      waiters.delete(id);
      clearTimeout(w.timer);
    }
    return w;
  };
  type Reply =
    { id: string; ok: true; value: unknown } | { id: string; ok: false; reason: string; temporary?: boolean };
  const settleWaiter = (r: Reply) => {
    const w = takeWaiter(r.id);
    if (r.ok) w?.resolve(r.value);
    else w?.reject(r.temporary ? new JobUnavailableError(r.reason) : new Error(r.reason));
  };
  let subscribed: Promise<void> | undefined;
  const subscribe = () => {
    if (!subscribed) {
      subscribed = (async () => {
        const connection = connect();
        connection.on('message', (_channel: string, message: string) => {
          try {
            settleWaiter(JSON.parse(message) as Reply);
          } catch {
            opts.log.warn({}, 'unreadable job reply');
          }
        });
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            connection.subscribe(replyChannel(instance)),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('redis not reachable')), 5_000);
            }),
          ]);
        } catch (err) {
          connections.splice(connections.indexOf(connection), 1);
          connection.disconnect();
          throw err;
        } finally {
          clearTimeout(timer);
        }
      })();
      subscribed.catch(() => {
        subscribed = undefined;
      });
    }
    return subscribed;
  };
  /** Worker side: the outcome of a job some process waits for (its id says which), to that process. */
  const reply = (r: Reply) => {
    const inst = REPLY_ID.exec(r.id)?.[1];
    if (!inst) return;
    if (inst === instance) return settleWaiter(r);
    producer
      .publish(replyChannel(inst), JSON.stringify(r))
      .catch((err: Error) => opts.log.warn({ err: err.message }, 'job reply not published'));
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
      // One bound for the whole call: subscribing (the first call, or after a lost connection) spends it too.
      const deadline = performance.now() + timeoutMs;
      try {
        await pTimeout(subscribe(), { milliseconds: timeoutMs, message: new JobTimeoutError(timeoutMs) });
      } catch (err) {
        throw err instanceof JobTimeoutError ? err : new EnqueueError(err);
      }
      // The job is removed once it completed (the caller got the outcome, the database holds the
      // record); a final failure stays in the failed set.
      const jobId = `${instance}.${randomUUID()}`;
      return new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(
          () => takeWaiter(jobId)?.reject(new JobTimeoutError(timeoutMs)),
          Math.max(0, deadline - performance.now()),
        );
        waiters.set(jobId, { resolve, reject, timer });
        enqueue(name, job, { jobId }, true).catch((err: Error) => takeWaiter(jobId)?.reject(err));
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
      // Emitted once BullMQ recorded the job's outcome (completed; failed for good when finishedOn is set).
      w.on('completed', (j, value) => {
        if (j.id) reply({ id: j.id, ok: true, value });
      });
      w.on('failed', (j, err) => {
        opts.log.warn({ queue: name, jobId: j?.id, attempt: j?.attemptsMade, err: err.message }, 'job attempt failed');
        if (j?.id && j.finishedOn)
          reply({
            id: j.id,
            ok: false,
            reason: err.message,
            temporary: isDatabaseUnavailable(err) || isDatabaseTimeout(err),
          });
      });
      workers.push(w);
    },
    onReconnect(listener) {
      reconnectListeners.push(listener);
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
      closed = true;
      await this.closeWorkers();
      await Promise.all([...queues.values()].map((q) => q.close()));
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
