import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, expect, test } from 'vitest';
import { buildNotifyJob } from '../../src/core/jobs/notify-job.ts';
import { createBullQueue } from '../../src/queue/bullmq-queue.ts';
import type { JobQueue } from '../../src/queue/job-queue.ts';
import { runProcess, type RunningProcess } from '../helpers/run-process.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';
import { waitFor } from '../helpers/wait-for.ts';

// BullMQ only (production mode): the in-process queue has no jobs that outlive their process.
const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const prefix = `stalled-${randomBytes(4).toString('hex')}`;
let queue: JobQueue | undefined;
let child: RunningProcess | undefined;

afterAll(async () => {
  await child?.stop('SIGKILL');
  await queue?.close();
  if (production) await deleteRedisPrefix(SHARED_REDIS_URL, prefix);
});

test.skipIf(!production)(
  'a worker process killed mid-job: its lock lapses and another worker runs the job, once',
  { timeout: 120_000 },
  async () => {
    child = runProcess(process.execPath, ['test/workers/fixtures/hanging-worker.ts'], {
      REDIS_URL: SHARED_REDIS_URL,
      QUEUE_PREFIX: prefix,
    });
    await child.waitForOutput(/worker ready/);
    queue = createBullQueue({ redisUrl: SHARED_REDIS_URL, prefix, log: pino({ level: 'silent' }) });
    await queue.add('notify', buildNotifyJob(4242));
    await child.waitForOutput(/active \{"kind":"notify","notificationId":4242\}/);
    // SIGKILL: no graceful close, the job stays active under the dead worker's lock.
    await child.stop('SIGKILL');
    expect(await queue.counts('notify')).toMatchObject({ active: 1, waiting: 0 });

    const ran: unknown[] = [];
    queue.process(
      'notify',
      async (data) => {
        ran.push(data);
      },
      1,
    );
    // The lock (BullMQ's 30 s default) lapses; the new worker's stalled check moves the job back.
    await waitFor(() => ran.length > 0, 90_000, 200);
    await waitFor(async () => (await queue!.counts('notify')).active === 0, 10_000);
    expect(ran).toEqual([{ kind: 'notify', notificationId: 4242 }]);
    expect(await queue.counts('notify')).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  },
);
