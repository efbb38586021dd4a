import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, expect, test } from 'vitest';
import type { TrackJob } from '../../src/core/jobs/job.ts';
import { createBullQueue, REDIS_COMMAND_TIMEOUT_MS } from '../../src/queue/bullmq-queue.ts';
import { EnqueueError, JobTimeoutError, type JobQueue, UnrecoverableJobError } from '../../src/queue/job-queue.ts';
import { createFreezableProxy } from '../helpers/freezable-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';

// BullMQ only (production mode): how an API call gets its job's outcome from a worker in its own
// process (handed over in memory) and from a worker in another process (a reply on its channel).
const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const prefix = `replies-${randomBytes(4).toString('hex')}`;
const queues: JobQueue[] = [];
const open = () => {
  const q = createBullQueue({ redisUrl: SHARED_REDIS_URL, prefix, log: pino({ level: 'silent' }) });
  queues.push(q);
  return q;
};

afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  if (production) await deleteRedisPrefix(SHARED_REDIS_URL, prefix);
});

const job = (transactionId: string) => ({ kind: 'sale', transactionId }) as unknown as TrackJob;

test.skipIf(!production)(
  'outcomes reach the waiting call from a worker in the same process and from one elsewhere',
  { timeout: 30_000 },
  async () => {
    const ran: string[] = [];
    const handler = (who: string) => async (data: unknown) => {
      const tx = (data as { transactionId: string }).transactionId;
      ran.push(`${who}:${tx}`);
      if (tx.startsWith('bad')) throw new UnrecoverableJobError(`cannot run ${tx}`);
      return { ok: true, by: who, tx };
    };
    // The API process waits; only the worker process consumes (the split topology).
    const api = open();
    const worker = open();
    worker.process('track', handler('worker'), 4);
    const remote = await Promise.all(['r1', 'r2', 'r3'].map((tx) => api.addAndWait('track', job(tx), 10_000)));
    expect(remote).toEqual(['r1', 'r2', 'r3'].map((tx) => ({ ok: true, by: 'worker', tx })));
    await expect(api.addAndWait('track', job('bad-remote'), 10_000)).rejects.toThrow('cannot run bad-remote');
    // A final failure stays in the failed set; completed API jobs are removed.
    expect(await api.counts('track')).toMatchObject({ waiting: 0, active: 0, failed: 1 });

    // A worker in the waiting process (serve): still through Redis, the outcome handed over in memory.
    await worker.closeWorkers();
    api.process('track', handler('api'), 4);
    expect(await api.addAndWait('track', job('l1'), 10_000)).toEqual({ ok: true, by: 'api', tx: 'l1' });
    await expect(api.addAndWait('track', job('bad-local'), 10_000)).rejects.toThrow('cannot run bad-local');
    expect(ran.filter((r) => !r.startsWith('worker:') && !r.startsWith('api:'))).toEqual([]);
    expect(ran.filter((r) => r.endsWith(':l1'))).toEqual(['api:l1']);
  },
);

test.skipIf(!production)(
  'a hung Redis: a waiting call fails within its own timeout, subscribing included, and an enqueue within the command timeout',
  { timeout: 30_000 },
  async () => {
    // Redis behind a proxy that stops forwarding: connections stay open, nothing answers.
    const proxy = await createFreezableProxy(SHARED_REDIS_URL);
    // Its own prefix: the other test's workers still consume the shared one.
    const hungPrefix = `${prefix}-hung`;
    const failsWithin = async (call: Promise<unknown>) => {
      const t = performance.now();
      const err = await call.then(
        () => null,
        (e: unknown) => e,
      );
      return { err, ms: performance.now() - t };
    };
    try {
      const fresh = createBullQueue({ redisUrl: proxy.url, prefix: hungPrefix, log: pino({ level: 'silent' }) });
      queues.push(fresh);
      await waitFor(() => fresh.ping(), 5_000);
      // Not subscribed to replies yet: the subscription spends the call's own 1 s.
      proxy.freeze();
      const first = await failsWithin(fresh.addAndWait('track', job('hung-1'), 1_000));
      expect(first.err).toBeInstanceOf(JobTimeoutError);
      expect(first.ms).toBeLessThan(1_500);

      proxy.thaw();
      const subscribed = createBullQueue({ redisUrl: proxy.url, prefix: hungPrefix, log: pino({ level: 'silent' }) });
      queues.push(subscribed);
      subscribed.process('track', async () => ({ ok: true }), 1);
      expect(await subscribed.addAndWait('track', job('before-hang'), 5_000)).toEqual({ ok: true });
      // Subscribed: the enqueue itself hangs, and fails after REDIS_COMMAND_TIMEOUT_MS.
      proxy.freeze();
      const second = await failsWithin(subscribed.addAndWait('track', job('hung-2'), 10_000));
      expect(second.err).toBeInstanceOf(EnqueueError);
      expect(second.ms).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 50);
      expect(second.ms).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 500);
    } finally {
      proxy.thaw();
      await Promise.all(queues.splice(-2).map((q) => q.close()));
      await proxy.close();
      await deleteRedisPrefix(SHARED_REDIS_URL, hungPrefix);
    }
  },
);

test.skipIf(!production)(
  'a hash-tagged prefix ({name}, for Redis Cluster) runs jobs and replies like a plain one',
  { timeout: 30_000 },
  async () => {
    const tagged = `{${prefix}t}`;
    const q = createBullQueue({ redisUrl: SHARED_REDIS_URL, prefix: tagged, log: pino({ level: 'silent' }) });
    queues.push(q);
    q.process('track', async (data) => ({ tx: (data as { transactionId: string }).transactionId }), 2);
    expect(await q.addAndWait('track', job('h1'), 10_000)).toEqual({ tx: 'h1' });
    await deleteRedisPrefix(SHARED_REDIS_URL, tagged);
  },
);
