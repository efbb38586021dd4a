/**
 * API calls run in place (src/queue/track-in-place.ts) over the real BullMQ queue: a process that
 * consumes `track` runs the job itself, its worker's concurrency at a time, without Redis; what
 * throws there is retried through the queue; a call that cannot get a slot in time times out
 * without running; closing waits for the calls running in place. Production mode (Redis).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, expect, test } from 'vitest';
import type { TrackJob } from '../../src/core/jobs/job.ts';
import { createBullQueue } from '../../src/queue/bullmq-queue.ts';
import { JobTimeoutError, type JobQueue, UnrecoverableJobError } from '../../src/queue/job-queue.ts';
import { runTrackInPlace } from '../../src/queue/track-in-place.ts';
import { createFreezableProxy } from '../helpers/freezable-proxy.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';
import { waitFor } from '../helpers/wait-for.ts';

const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const prefix = `in-place-${randomBytes(4).toString('hex')}`;
const log = pino({ level: 'silent' });
const queues: JobQueue[] = [];
const prefixes: string[] = [];
/** Each test its own prefix: a job retried through the queue reaches only that test's worker. */
const open = (redisUrl = SHARED_REDIS_URL) => {
  prefixes.push(`${prefix}-${prefixes.length}`);
  const q = runTrackInPlace(createBullQueue({ redisUrl, prefix: prefixes.at(-1)!, log }), log);
  queues.push(q);
  return q;
};
const job = (transactionId: string) => ({ kind: 'sale', transactionId }) as unknown as TrackJob;
const txOf = (data: unknown) => (data as { transactionId: string }).transactionId;

afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  if (production) for (const p of prefixes) await deleteRedisPrefix(SHARED_REDIS_URL, p);
});

test.skipIf(!production)('a call runs in place, with Redis not answering', { timeout: 20_000 }, async () => {
  const proxy = await createFreezableProxy(SHARED_REDIS_URL);
  try {
    const q = open(proxy.url);
    q.process('track', async (data) => ({ tx: txOf(data) }), 2);
    await waitFor(() => q.ping(), 5_000);
    proxy.freeze();
    expect(await q.addAndWait('track', job('frozen'), 2_000)).toEqual({ tx: 'frozen' });
  } finally {
    proxy.thaw();
    await queues.pop()!.close();
    await proxy.close();
  }
});

test.skipIf(!production)(
  'at most the worker concurrency runs in place; the others wait their turn, in arrival order',
  { timeout: 20_000 },
  async () => {
    const q = open();
    let running = 0;
    let most = 0;
    const order: string[] = [];
    q.process(
      'track',
      async (data) => {
        order.push(txOf(data));
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        return txOf(data);
      },
      2,
    );
    const txs = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(await Promise.all(txs.map((tx) => q.addAndWait('track', job(tx), 5_000)))).toEqual(txs);
    expect(most).toBe(2);
    expect(order).toEqual(txs);
    // None went through Redis: the queue's event stream, which records every job added, holds none.
    const redis = new Redis(SHARED_REDIS_URL);
    try {
      expect(await redis.xlen(`${prefixes.at(-1)}:track:events`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  },
);

test.skipIf(!production)(
  'a call that throws in place is retried through the queue; one that can never run is not',
  { timeout: 20_000 },
  async () => {
    const q = open();
    const ran: string[] = [];
    q.process(
      'track',
      async (data) => {
        const tx = txOf(data);
        ran.push(tx);
        if (tx === 'bad') throw new UnrecoverableJobError('cannot run bad');
        if (tx === 'flaky' && ran.filter((r) => r === tx).length === 1) throw new Error('connection terminated');
        return { tx };
      },
      2,
    );
    expect(await q.addAndWait('track', job('flaky'), 5_000)).toEqual({ tx: 'flaky' });
    expect(ran).toEqual(['flaky', 'flaky']);
    await expect(q.addAndWait('track', job('bad'), 5_000)).rejects.toThrow('cannot run bad');
    expect(ran).toEqual(['flaky', 'flaky', 'bad']);
  },
);

test.skipIf(!production)(
  'a call whose turn does not come in time times out without running; closing waits for the running ones',
  { timeout: 20_000 },
  async () => {
    const q = open();
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    q.process(
      'track',
      async (data) => {
        ran.push(txOf(data));
        await held;
        return txOf(data);
      },
      1,
    );
    const first = q.addAndWait('track', job('slow'), 10_000);
    await expect(q.addAndWait('track', job('late'), 200)).rejects.toBeInstanceOf(JobTimeoutError);
    let closed = false;
    const closing = q.closeWorkers().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    release();
    expect(await first).toBe('slow');
    await closing;
    expect(ran).toEqual(['slow']);
  },
);
