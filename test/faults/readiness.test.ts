/**
 * `/readyz` of an `http` process is honest about the workers: 503 with a reason while no worker
 * consumes the queues (every API call would wait JOB_WAIT_TIMEOUT_MS for a 503), 200 once one
 * does, and 503 again when it stops or dies. The worker's own listener answers the same probes.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort, startService, type ServiceProcess } from '../helpers/service-process.ts';
import { createTempDatabase, type TempDatabase } from '../helpers/temp-database.ts';
import { SHARED_REDIS_URL, deleteRedisPrefix } from '../helpers/throwaway-redis.ts';
import { send, waitFor } from './fault-env.ts';

let db: TempDatabase;
const prefix = `ready${randomBytes(4).toString('hex')}`;
const procs: ServiceProcess[] = [];
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTempDatabase('ready');
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: SHARED_REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'info',
    DEMO_SEED: 'false',
    ADMIN_TOKEN: 'ready-admin-token-0123456789-abcdefgh',
  };
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(5_000)));
  await db?.drop();
  await deleteRedisPrefix(SHARED_REDIS_URL, prefix).catch(() => {});
});

const readyz = async (url: string) => send(url, '/readyz');

test('http /readyz: 503 with a reason without a worker, 200 while one runs, 503 again after it stops or is killed', async () => {
  const http = await startService('http', env);
  procs.push(http);

  const before = await readyz(http.url);
  expect(before.status).toBe(503);
  expect(before.body).toMatchObject({
    status: 'unavailable',
    database: true,
    queue_ok: true,
    workers: { track: 0, webhook: 0, notify: 0 },
  });
  expect(before.body.reasons.join(' ')).toMatch(
    /no worker is consuming the queue\(s\) track, webhook, notify, outbound: start one \(npm run start:worker\)/,
  );

  const healthPort = await freePort();
  const worker = await startService('worker', { ...env, WORKER_HEALTH_PORT: String(healthPort) });
  procs.push(worker);
  await waitFor('http /readyz 200 once a worker runs', 30_000, async () => (await readyz(http.url)).status === 200);
  expect((await readyz(http.url)).body).toMatchObject({
    status: 'ready',
    workers: { track: 1, webhook: 1, notify: 1 },
  });

  // The worker's own listener: up and ready (its queues are consumed: by itself).
  const workerUrl = `http://127.0.0.1:${healthPort}`;
  expect((await send(workerUrl, '/healthz')).body).toEqual({ status: 'ok' });
  expect((await readyz(workerUrl)).status).toBe(200);
  // It serves nothing else.
  expect((await send(workerUrl, '/api/v1/track/click', { body: {} })).status).toBe(404);

  // A graceful stop closes the worker's connections: not ready any more.
  expect(await worker.stop()).toBe(0);
  await waitFor(
    'http /readyz 503 after the worker stopped',
    30_000,
    async () => (await readyz(http.url)).status === 503,
  );

  // A killed worker's connections are closed by the kernel: the same.
  const second = await startService('worker', env);
  procs.push(second);
  await waitFor('http /readyz 200 with the second worker', 30_000, async () => (await readyz(http.url)).status === 200);
  second.signal('SIGKILL');
  await second.exited;
  await waitFor(
    'http /readyz 503 after the worker was killed',
    30_000,
    async () => (await readyz(http.url)).status === 503,
  );
});

test('the worker health listener is off by default', async () => {
  const worker = await startService('worker', env);
  procs.push(worker);
  expect(worker.output()).not.toContain('health listener');
  await worker.stop();
});
