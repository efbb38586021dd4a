/**
 * `npm run soak`: an `http` process and two workers on a fresh database and the soak's own
 * `redis-server`, a steady mixed load (API sales and refunds with merchant retries, Stripe
 * checkouts and refunds with redeliveries), and faults injected one after another until
 * SOAK_FAULTS were (faults.ts). Then nothing may be pending, lost or doubled (checks.ts), and the
 * figures go to last-result.md (report.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createFaultEnv, sleep, type FaultEnv } from '../faults/fault-env.ts';
import { createThrowawayRedis, type ThrowawayRedis } from '../helpers/throwaway-redis.ts';
import { FAULT_KINDS, injectFaults } from './faults.ts';
import { ledgerVerify, outcome, workPlace } from './checks.ts';
import { failedJobReasons, waitDrained } from '../helpers/pending-work.ts';
import { loadAverage, writeResult } from './report.ts';
import { SOAK } from './settings.ts';
import { newExpected, Traffic } from './traffic.ts';

let redis: ThrowawayRedis;
let env: FaultEnv;
beforeAll(async () => {
  redis = await createThrowawayRedis();
  env = await createFaultEnv({
    roles: ['http', 'worker', 'worker'],
    redisUrl: redis.url,
    customers: 500,
    partners: 10,
    // A sale's caller waits 4 s for its job, then gets a 503 and retries (as the spec tells it).
    env: { JOB_WAIT_TIMEOUT_MS: '4000' },
  });
});
afterAll(async () => {
  await env?.close();
  await redis?.stop();
});

test(`${SOAK.faults} faults under a steady load: nothing lost, nothing doubled`, async () => {
  const x = newExpected();
  const traffic = new Traffic(env.http.url, env.fixture, x);
  const loadBefore = loadAverage();
  const t0 = Date.now();
  let stopped = false;
  const stop = () => stopped || Date.now() - t0 > SOAK.minutes * 60_000;

  // The steady load: half the clients send API sales, half Stripe checkouts, each in turn.
  const clients = Array.from({ length: SOAK.clients }, async (_, c) => {
    while (!stop()) {
      await (c % 2 === 0 ? traffic.apiSale() : traffic.checkout());
      await sleep(SOAK.pauseMs);
    }
  });
  await sleep(2_000);
  const injector = injectFaults({
    env,
    traffic,
    target: SOAK.faults,
    intervalMs: SOAK.intervalMs,
    spanMs: SOAK.minutes * 60_000 * 0.9,
    stop,
  });
  await injector.done;
  const faultSeconds = (Date.now() - t0) / 1000;
  stopped = true;
  await Promise.all(clients);
  const loadSeconds = (Date.now() - t0) / 1000;

  const pending = await waitDrained(workPlace(env), 240_000);
  const drainSeconds = (Date.now() - t0) / 1000 - loadSeconds;
  const failedJobs = await failedJobReasons(workPlace(env));
  const o = await outcome(env, x);
  const verify = await ledgerVerify(env);
  const faults = Object.values(injector.counts).reduce((a, b) => a + b, 0);
  const items = [...x.sales.values(), ...x.refunds.values(), ...x.events.values()];
  const retried = items.filter((i) => i.attempts > 1).length;
  const text = writeResult(
    {
      date: new Date().toISOString(),
      settings: {
        SOAK_FAULTS: SOAK.faults,
        SOAK_MINUTES: SOAK.minutes,
        SOAK_CLIENTS: SOAK.clients,
        SOAK_PAUSE_MS: SOAK.pauseMs,
        'fault every (ms)': SOAK.intervalMs,
        processes: 'http + 2 workers (WORKER_CONCURRENCY=8, DB_POOL_MAX=10)',
      },
      faults: injector.counts,
      missed: injector.missed,
      figures: {
        'Faults injected': `${faults} in ${faultSeconds.toFixed(0)} s (${(faults / faultSeconds).toFixed(1)}/s)`,
        'Requests sent': x.requests,
        'Answers by status': Object.entries(x.statuses)
          .map(([k, v]) => `${k === '0' ? 'no answer' : k}: ${v}`)
          .join(', '),
        'Items sent (API sales, API refunds, Stripe events)': `${x.sales.size}, ${x.refunds.size}, ${x.events.size}`,
        Acknowledged: o.acknowledged,
        'Not acknowledged (gave up after 120 s of retries)': o.unacknowledged,
        'Retried (more than one attempt)': retried,
        Lost: o.lost.length,
        Doubled: o.doubled.length,
        'Load duration': `${loadSeconds.toFixed(0)} s`,
        'Drained after': `${drainSeconds.toFixed(0)} s`,
        'Load average (1 min) before / after': `${loadBefore} / ${loadAverage()}`,
      },
      checks: {
        'Pending after the run': JSON.stringify(pending),
        'Failed jobs by queue, job and reason (their items are checked above like any other)':
          JSON.stringify(failedJobs),
        'Lost (first 5)': JSON.stringify(o.lost.slice(0, 5)),
        'Doubled (first 5)': JSON.stringify(o.doubled.slice(0, 5)),
        'Inbox rows not processed': JSON.stringify(o.unprocessed),
        'Ledger invariants (ledgerViolations)': JSON.stringify(o.violations),
        'ledger:verify': `exit ${verify.code}: ${verify.line.slice(0, 160)}`,
      },
    },
    SOAK.faults >= 10_000,
  );
  console.log(text);

  expect(faults).toBeGreaterThanOrEqual(SOAK.faults);
  for (const k of FAULT_KINDS) expect(injector.counts[k], k).toBeGreaterThan(0);
  expect(o.lost).toEqual([]);
  expect(o.doubled).toEqual([]);
  expect(o.unacknowledged).toBe(0);
  expect(o.unprocessed).toEqual({});
  // A job that failed for good is reported (above); what it carried is in the lost/doubled checks.
  const { failed_jobs: _failed, ...stillPending } = pending;
  expect(stillPending).toEqual(Object.fromEntries(Object.keys(stillPending).map((k) => [k, 0])));
  expect(o.violations).toEqual({});
  expect(verify.code, verify.line).toBe(0);
});
