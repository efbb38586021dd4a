/**
 * PostgreSQL hung, not gone: the service's database connections (the HTTP process's and the
 * worker's) go through a TCP proxy that is frozen for 20 s, which is what a stopped server or a
 * network partition looks like to the service (the connections stay open, new ones are accepted,
 * nothing answers, no error arrives). The shared PostgreSQL itself is never stopped. Every request
 * must still be answered within its documented bound (docs/operations.md, Reliability: "Bounds on a hung
 * dependency"), and once the database answers again every acknowledged webhook and sale is applied
 * exactly once; what got a 503 and is retried (as providers and merchants do) is applied once too.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BASE_DATABASE_URL } from '../helpers/temp-database.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { createFaultEnv, send, sleep, waitFor, type FaultEnv, type Reply } from './fault-env.ts';
import {
  describeRun,
  expectAppliedOnce,
  expectReadyzBounded,
  expectSuccessOrTyped503,
  runUnderHang,
  slowCalls,
} from './hung-dependency.ts';

const HUNG_MS = 20_000;
/**
 * The documented bounds (docs/operations.md, Reliability), measured here from the client, so with its own
 * latency. Webhooks: DB_QUERY_TIMEOUT_MS (5 s, the default) plus the rate-limit check's own bound.
 */
const WEBHOOK_MS = 5_250;
/** JOB_WAIT_TIMEOUT_MS (10 s, the default) plus the rate-limit check's own bound. */
const TRACK_MS = 10_250;

let proxy: FreezableProxy;
let env: FaultEnv;
beforeAll(async () => {
  proxy = await createFreezableProxy(BASE_DATABASE_URL);
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    customers: 200,
    partners: 4,
    // Both processes reach the database through the proxy: the whole database hangs for them.
    databaseUrl: (url) => {
      const u = new URL(url);
      u.port = new URL(proxy.url).port;
      return u.toString();
    },
  });
});
afterAll(async () => {
  proxy?.thaw();
  await env?.close();
  await proxy?.close();
});

test('PostgreSQL hung for 20 s: every request answered within its bound, nothing acknowledged lost', async () => {
  const url = env.http.url;
  // Three click loops: during the hang a click waits out the job wait (10 s), so each loop sends one or two.
  const run = await runUnderHang(env, {
    tag: 'pghung',
    hungMs: HUNG_MS,
    clickLoops: 3,
    freeze: () => proxy.freeze(),
    thaw: () => proxy.thaw(),
  });
  // Webhooks: acknowledged once stored, or a retryable 503 (the provider delivers it again) within the bound.
  // Sales and clicks: a success, or the typed, retryable 503, within the job wait.
  for (const [kind, bound] of [
    ['webhook', WEBHOOK_MS],
    ['sale', TRACK_MS],
    ['click', TRACK_MS],
  ] as const) {
    expect(slowCalls(run.of(kind), bound)).toEqual([]);
    expectSuccessOrTyped503(run, kind);
  }
  expectReadyzBounded(run, 'the database does not answer');
  // Enough traffic ran into the fault to mean something.
  for (const kind of ['webhook', 'sale', 'click', 'readyz'] as const)
    expect(run.of(kind, 'hung').length).toBeGreaterThan(2);
  expect(run.of('sale', 'before').some((c) => c.reply.status === 200)).toBe(true);
  await waitFor(
    'readiness after the database answers',
    30_000,
    async () => (await send(url, '/readyz')).status === 200,
  );

  // The provider delivers again what got a 5xx; a redelivery of a row stored late answers 200 too.
  const refused = run.of('webhook').filter((c) => c.reply.status !== 200);
  for (const c of refused) {
    const w = run.webhook(c.i);
    let r: Reply = c.reply;
    for (let a = 0; a < 10 && r.status !== 200; a++) {
      r = await send(url, w.path, { body: w.body, headers: w.headers });
      if (r.status !== 200) await sleep(500);
    }
    expect(r.status).toBe(200);
  }
  const retried = await expectAppliedOnce(env, run, 'pghung');
  console.log(
    `postgres hung ${HUNG_MS / 1000} s: ${describeRun(run)}; ` +
      `${refused.length} webhooks delivered again and ${retried} sales retried, all applied once`,
  );
}, 150_000);
