/**
 * Redis with Sentinel: the service (`http` + `worker`) finds the primary through three sentinels
 * (REDIS_SENTINELS), the primary is SIGKILLed under webhook and API-sale load, the sentinels
 * promote the replica and the service follows. Jobs the dead primary had not passed to its replica
 * are lost with it; the inbox sweeper and the merchants' retries make up for them, so every
 * acknowledged event and sale is still applied exactly once. Prints the longest gap between two
 * webhook acknowledgements around the failover.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import { createSentinelGroup, SENTINEL_NAME, type SentinelGroup } from '../helpers/redis-sentinel.ts';
import {
  createFaultEnv,
  ledgerViolations,
  loadFor,
  pendingWebhooks,
  send,
  sendSaleWithRetry,
  sleep,
  waitFor,
  type FaultEnv,
} from './fault-env.ts';

let group: SentinelGroup;
let env: FaultEnv;
beforeAll(async () => {
  group = await createSentinelGroup();
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    // The URL's host is not used with sentinels; the cleanup reaches the promoted replica.
    redisUrl: `redis://127.0.0.1:${group.replicaPort}`,
    env: { REDIS_SENTINELS: group.sentinels, REDIS_SENTINEL_NAME: SENTINEL_NAME, JOB_WAIT_TIMEOUT_MS: '4000' },
  });
});
afterAll(async () => {
  await env?.close();
  await group?.close();
});

test('the Redis primary killed under load: the sentinels promote the replica, nothing acknowledged is lost or doubled', async () => {
  const f = env.fixture;
  const url = env.http.url;
  const acked = new Set<number>();
  const ackTimes: number[] = [];
  const sales = new Map<string, number[]>();
  let killedAt = 0;
  let answeredBeforeKill = 0;
  expect(await group.currentPrimaryPort()).toBe(group.primaryPort);

  const webhooks = loadFor(12_000, 6, 4_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_sn${i}`,
      paymentIntent: `pi_sn${i}`,
      amountCents: 5_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const r = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers });
    if (r.status === 200) {
      acked.add(i);
      ackTimes.push(Date.now());
    }
  });
  const api = loadFor(12_000, 4, 2_000, async (i) => {
    const tx = `api-sn-${i}`;
    const { final, statuses } = await sendSaleWithRetry(
      url,
      f.liveKey,
      { transaction_id: tx, amount_cents: 7_000 + i, customer_key: f.customerKey((i * 7) % f.customers) },
      { attempts: 40, delayMs: 500 },
    );
    sales.set(tx, statuses);
    if (statuses.length === 1 && final.status === 200 && !killedAt) answeredBeforeKill++;
    expect([200, 409]).toContain(final.status);
  });
  let failover = { newPrimaryPort: 0, failoverMs: 0 };
  const killer = (async () => {
    await sleep(3_000);
    killedAt = Date.now();
    failover = await group.killPrimary();
  })();
  await Promise.all([webhooks, api, killer]);
  expect(failover.newPrimaryPort).toBe(group.replicaPort);
  // The service used the primary the sentinels named (the URL points at the read-only replica):
  // API sales were answered before the kill.
  expect(answeredBeforeKill).toBeGreaterThan(0);

  await waitFor('every acknowledged webhook processed', 120_000, async () => (await pendingWebhooks(env.db)) === 0);
  const { rows: events } = await env.db.pool.query<{ status: string }>(
    `select status from webhook_event where program_id = $1 and dedupe_key like 'evt_sn%'`,
    [f.programId],
  );
  expect(events.length).toBe(acked.size);
  expect(events.filter((e) => e.status !== 'processed')).toEqual([]);
  const {
    rows: [w],
  } = await env.db.pool.query(
    `select count(*)::int as sales, count(c.id)::int as commissions
       from sale s left join commission c on c.sale_id = s.id where s.transaction_id like 'pi_sn%'`,
  );
  expect(w).toEqual({ sales: acked.size, commissions: acked.size });
  const { rows: apiRows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'api-sn-%'`,
  );
  expect(new Set(apiRows.map((x) => x.transaction_id))).toEqual(new Set(sales.keys()));
  expect(await ledgerViolations(env.db)).toEqual({});
  // Load went on after the failover: acknowledgements resumed on the promoted replica.
  const after = ackTimes.filter((t) => t > Math.max(...ackTimes) - 2_000).length;
  expect(after).toBeGreaterThan(0);
  const gaps = ackTimes.slice(1).map((t, k) => t - ackTimes[k]!);
  const retried = [...sales.values()].filter((s) => s.length > 1).length;
  console.log(
    `sentinel failover: ${failover.failoverMs} ms until the sentinels named the replica; longest gap between webhook acknowledgements ${Math.max(...gaps)} ms; ${acked.size} checkouts acknowledged, ${sales.size} API sales (${retried} retried)`,
  );
});
