/**
 * Webhooks acknowledged from the inbox while Redis is down are enqueued within seconds of Redis
 * coming back (the queue's reconnect), not an inbox-sweep interval later: the sweep interval here is
 * a minute, and every row must be processed well before it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createThrowawayRedis, type ThrowawayRedis } from '../helpers/throwaway-redis.ts';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import { createFaultEnv, pendingWebhooks, send, waitFor, type FaultEnv } from './fault-env.ts';

let redis: ThrowawayRedis;
let env: FaultEnv;
beforeAll(async () => {
  redis = await createThrowawayRedis();
  env = await createFaultEnv({ roles: ['serve'], redisUrl: redis.url, env: { SWEEP_INTERVAL_MS: '60000' } });
});
afterAll(async () => {
  await env?.close();
  await redis?.stop();
});

test('webhooks stored during a Redis outage are processed within seconds of its return', async () => {
  const f = env.fixture;
  await redis.stop();
  const acked: number[] = [];
  for (let i = 0; i < 8; i++) {
    const d = signedStripeCheckout(f, {
      eventId: `evt_rc${i}`,
      paymentIntent: `pi_rc${i}`,
      amountCents: 3_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const r = await send(env.http.url, `/api/v1/webhooks/stripe/${f.programId}`, {
      body: d.body,
      headers: d.headers,
      timeoutMs: 10_000,
    });
    if (r.status === 200) acked.push(i);
  }
  expect(acked.length).toBeGreaterThan(0);
  expect(await pendingWebhooks(env.db)).toBe(acked.length);

  await redis.start();
  const back = Date.now();
  await waitFor(
    'the rows stored during the outage to be processed',
    20_000,
    async () => (await pendingWebhooks(env.db)) === 0,
  );
  const seconds = (Date.now() - back) / 1000;
  expect(seconds).toBeLessThan(20);
  const { rows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'pi_rc%' order by transaction_id`,
  );
  expect(rows.map((r) => Number(r.transaction_id.slice(5))).sort()).toEqual(acked);
  console.log(
    `redis reconnect: ${acked.length} webhooks stored while Redis was down, all processed ${seconds.toFixed(1)} s after it came back`,
  );
}, 90_000);
