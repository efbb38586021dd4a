/**
 * Stop Redis (a throwaway redis-server, never the shared one) for a few seconds during webhook
 * ingestion and API traffic. Webhooks are acknowledged once stored in the inbox (or get a 5xx the
 * provider retries); the inbox sweeper enqueues what the dead queue never received once Redis is
 * back. API calls keep being answered: a `serve` process runs them in place, without Redis
 * (API_CALLS_IN_PLACE); any that cannot be answers the typed, retryable 503, never a 500.
 * Nothing acknowledged is lost.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createThrowawayRedis, type ThrowawayRedis } from '../helpers/throwaway-redis.ts';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import {
  bearer,
  createFaultEnv,
  ledgerViolations,
  loadFor,
  pendingWebhooks,
  send,
  sendSaleWithRetry,
  sleep,
  waitFor,
  type FaultEnv,
  type Reply,
} from './fault-env.ts';

let redis: ThrowawayRedis;
let env: FaultEnv;
beforeAll(async () => {
  redis = await createThrowawayRedis();
  env = await createFaultEnv({
    roles: ['serve'],
    redisUrl: redis.url,
    env: { SWEEP_INTERVAL_MS: '500', JOB_WAIT_TIMEOUT_MS: '3000' },
  });
});
afterAll(async () => {
  await env?.close();
  await redis?.stop();
});

test('Redis down for a few seconds: webhooks stored and processed later, API calls still recorded', async () => {
  const f = env.fixture;
  const url = env.http.url;
  type Phase = 'before' | 'down' | 'after';
  let phase: Phase = 'before';
  const webhook = new Map<number, { status: number; phase: Phase }>();
  const saleReplies: Array<{ tx: string; phase: Phase; reply: Reply }> = [];
  // The load runs until the outage is over and enough calls were answered after it (or 15 s after
  // Redis came back): a phase-driven stop, so a fast machine cannot use up its calls mid-outage.
  let backAt = 0;
  const okAfter = () =>
    saleReplies.filter((s) => s.phase === 'after' && s.reply.status === 200).length >= 5 &&
    [...webhook.values()].filter((w) => w.phase === 'after' && w.status === 200).length >= 5;
  const done = () => phase === 'after' && (okAfter() || Date.now() - backAt > 15_000);

  const webhooks = loadFor(done, 4, 50_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_ro${i}`,
      paymentIntent: `pi_ro${i}`,
      amountCents: 4_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const at = phase;
    const r = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, {
      body: d.body,
      headers: d.headers,
      timeoutMs: 15_000,
    });
    webhook.set(i, { status: r.status, phase: at });
    await sleep(10);
  });
  const api = loadFor(done, 3, 50_000, async (i) => {
    const tx = `api-ro-${i}`;
    const at = phase;
    const reply = await send(url, '/api/v1/track/sale', {
      body: { transaction_id: tx, amount_cents: 9_000 + i, customer_key: f.customerKey((i * 3) % f.customers) },
      headers: bearer(f.liveKey),
      timeoutMs: 15_000,
    });
    saleReplies.push({ tx, phase: at, reply });
    await sleep(5);
  });
  const outage = (async () => {
    await sleep(2_000);
    phase = 'down';
    await redis.stop();
    await sleep(4_000);
    await redis.start();
    backAt = Date.now();
    phase = 'after';
  })();
  await Promise.all([webhooks, api, outage]);

  // During the outage: API calls were recorded in place; one that was not answered the typed,
  // retryable 503 (never a 500).
  const down = saleReplies.filter((s) => s.phase === 'down');
  expect(down.length).toBeGreaterThan(5);
  expect(down.filter((s) => s.reply.status === 200).length).toBeGreaterThan(5);
  for (const s of down.filter((x) => x.reply.status === 503)) {
    expect(s.reply.body).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), retry_after_seconds: expect.any(Number) },
    });
  }
  expect(saleReplies.filter((s) => s.reply.status === 500 || s.reply.status === 0)).toEqual([]);
  expect(down.every((s) => [200, 409, 503].includes(s.reply.status))).toBe(true);
  // Once Redis is back, calls succeed again.
  expect(saleReplies.filter((s) => s.phase === 'after' && s.reply.status === 200).length).toBeGreaterThan(0);

  // Webhooks: during the outage each was acknowledged (stored in the inbox) or refused with a 5xx.
  const downHooks = [...webhook.values()].filter((w) => w.phase === 'down');
  expect(downHooks.length).toBeGreaterThan(5);
  expect(downHooks.every((w) => w.status === 200 || w.status >= 500)).toBe(true);
  expect(downHooks.filter((w) => w.status === 200).length).toBeGreaterThan(0);
  expect([...webhook.values()].filter((w) => w.phase === 'after' && w.status === 200).length).toBeGreaterThan(0);

  // The merchant retries what got a 503 (same transaction id); a 409 means it was recorded.
  for (const s of saleReplies.filter((x) => x.reply.status !== 200 && x.reply.status !== 409)) {
    const { final } = await sendSaleWithRetry(url, f.liveKey, {
      transaction_id: s.tx,
      amount_cents: 9_000 + Number(s.tx.slice(7)),
      customer_key: f.customerKey((Number(s.tx.slice(7)) * 3) % f.customers),
    });
    expect([200, 409]).toContain(final.status);
  }

  // Nothing acknowledged is lost: the sweeper enqueues the rows the queue never got.
  await waitFor('the inbox to drain after Redis came back', 60_000, async () => (await pendingWebhooks(env.db)) === 0);
  const ackedIds = [...webhook].filter(([, w]) => w.status === 200).map(([i]) => i);
  const { rows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'pi_ro%'`,
  );
  const recorded = new Set(rows.map((r) => Number(r.transaction_id.slice(5))));
  expect(ackedIds.filter((i) => !recorded.has(i))).toEqual([]);
  // A 5xx'd delivery may still have been stored: then it is processed too, never half-done.
  const {
    rows: [ev],
  } = await env.db.pool.query(
    `select count(*) filter (where status <> 'processed')::int as open, count(*)::int as n from webhook_event`,
  );
  expect(ev.open).toBe(0);
  expect(rows.length).toBe(ev.n);
  const { rows: apiRows } = await env.db.pool.query(
    `select count(*)::int as n from sale where transaction_id like 'api-ro-%'`,
  );
  expect(apiRows[0].n).toBe(saleReplies.length);
  expect(await ledgerViolations(env.db)).toEqual({});
  console.log(
    `redis outage: ${downHooks.length} webhooks during the outage (${downHooks.filter((w) => w.status === 200).length} acknowledged from the inbox, others 5xx), ${down.length} API calls (${down.filter((s) => s.reply.status === 200).length} recorded in place, ${down.filter((s) => s.reply.status === 503).length} × 503); ${ackedIds.length} webhooks acknowledged in all, all processed`,
  );
});
