/**
 * Redis hung, not gone: the throwaway redis-server is stopped with SIGSTOP for 25 s, which is what a
 * network partition looks like to the service (the connections stay open, nothing answers, no
 * error arrives). Every request must still be answered within its documented bound (docs/operations.md,
 * Reliability: "Bounds on a hung dependency"), and once Redis resumes (SIGCONT) every acknowledged
 * webhook and sale is applied exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createThrowawayRedis, type ThrowawayRedis } from '../helpers/throwaway-redis.ts';
import { createFaultEnv, send, waitFor, type FaultEnv } from './fault-env.ts';
import {
  describeRun,
  expectAppliedOnce,
  expectReadyzBounded,
  expectSuccessOrTyped503,
  runUnderHang,
  slowCalls,
} from './hung-dependency.ts';

const HUNG_MS = 25_000;
/** The documented bounds (docs/operations.md, Reliability), measured here from the client, so with its own latency. */
const WEBHOOK_ACK_MS = 2_000;
/** JOB_WAIT_TIMEOUT_MS (10 s, the default) plus the rate-limit check's own bound (0.25 s). */
const TRACK_MS = 10_250;

let redis: ThrowawayRedis;
let env: FaultEnv;
let stopped = false;
const resume = () => {
  if (stopped && redis?.pid) process.kill(redis.pid, 'SIGCONT');
  stopped = false;
};
beforeAll(async () => {
  redis = await createThrowawayRedis();
  env = await createFaultEnv({ roles: ['http', 'worker'], redisUrl: redis.url, customers: 200, partners: 4 });
});
afterAll(async () => {
  resume();
  await env?.close();
  await redis?.stop();
});

test('Redis hung (SIGSTOP) for 25 s: every request answered within its bound, nothing acknowledged lost', async () => {
  const run = await runUnderHang(env, {
    tag: 'hung',
    hungMs: HUNG_MS,
    clickLoops: 2,
    freeze() {
      process.kill(redis.pid!, 'SIGSTOP');
      stopped = true;
    },
    thaw: resume,
  });
  // Webhooks: acknowledged from the inbox within 2 s, every one.
  expect(slowCalls(run.of('webhook'), WEBHOOK_ACK_MS)).toEqual([]);
  expect(run.of('webhook').filter((c) => c.reply.status !== 200)).toEqual([]);
  // Sales and clicks: a success, or the typed, retryable 503, within the job wait.
  for (const kind of ['sale', 'click'] as const) {
    expect(slowCalls(run.of(kind), TRACK_MS)).toEqual([]);
    expectSuccessOrTyped503(run, kind);
  }
  expectReadyzBounded(run, 'the queue (bullmq) does not answer');
  // Enough traffic ran into the fault to mean something.
  for (const kind of ['webhook', 'sale', 'click', 'readyz'] as const)
    expect(run.of(kind, 'hung').length).toBeGreaterThan(3);
  expect(run.of('sale', 'before').some((c) => c.reply.status === 200)).toBe(true);
  await waitFor(
    'readiness after Redis resumed',
    15_000,
    async () => (await send(env.http.url, '/readyz')).status === 200,
  );

  // Every webhook acknowledged is processed once Redis answers again, exactly once.
  const retried = await expectAppliedOnce(env, run, 'hung');
  console.log(`redis hung ${HUNG_MS / 1000} s: ${describeRun(run)}; ${retried} sales retried, all applied once`);
}, 150_000);
