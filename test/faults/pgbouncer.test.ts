/**
 * The service behind PgBouncer in transaction mode (Debian's pgbouncer 1.18, which keeps no
 * prepared statements across transactions): `DB_PREPARED_STATEMENTS=false`, an `http` and a
 * `worker` process, webhooks with refunds and API sales flowing, and the pooler killed and started
 * again mid-load. Every acknowledged event and sale must be applied exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signedStripeCheckout, signedStripeRefund } from '../helpers/load-fixture.ts';
import { createPgBouncer, hasPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { BASE_DATABASE_URL } from '../helpers/temp-database.ts';
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

let bouncer: PgBouncer;
let env: FaultEnv;
beforeAll(async () => {
  if (!hasPgBouncer()) throw new Error('pgbouncer is not installed: `apt-get install pgbouncer` (.ci/run does)');
  const u = new URL(BASE_DATABASE_URL);
  bouncer = await createPgBouncer({
    target: { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username) || 'postgres' },
    poolMode: 'transaction',
    // Fewer server connections than the two processes' pools: transactions really share them.
    poolSize: 6,
  });
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    databaseUrl: (url) => bouncer.urlFor(new URL(url).pathname.slice(1)),
    env: { DB_PREPARED_STATEMENTS: 'false', JOB_WAIT_TIMEOUT_MS: '4000' },
  });
});
afterAll(async () => {
  await env?.close();
  await bouncer?.close();
});

test('behind transaction-mode PgBouncer, restarted mid-load: every acknowledged event and sale applied once', async () => {
  const f = env.fixture;
  const url = env.http.url;
  // Every delivery sent, by event id, and whether the service acknowledged it (200).
  const deliveries = new Map<string, { body: string; headers: Record<string, string>; acked: boolean }>();
  const refusals: number[] = [];
  const deliver = async (eventId: string, d: { body: string; headers: Record<string, string> }) => {
    const r = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers });
    if (r.status !== 200) refusals.push(r.status);
    deliveries.set(eventId, { ...d, acked: r.status === 200 });
    return r.status === 200;
  };
  const sales = new Map<string, number[]>();
  const webhooks = loadFor(8_000, 6, 3_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_pb${i}`,
      paymentIntent: `pi_pb${i}`,
      amountCents: 5_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    if ((await deliver(`evt_pb${i}`, d)) && i % 3 === 0) {
      const rf = signedStripeRefund(f, {
        eventId: `evt_pbr${i}`,
        refundId: `re_pb${i}`,
        paymentIntent: `pi_pb${i}`,
        amountCents: 1_000,
      });
      await deliver(`evt_pbr${i}`, rf);
    }
  });
  const api = loadFor(8_000, 4, 2_000, async (i) => {
    const tx = `api-pb-${i}`;
    const { final, statuses } = await sendSaleWithRetry(
      url,
      f.liveKey,
      { transaction_id: tx, amount_cents: 7_000 + i, customer_key: f.customerKey((i * 7) % f.customers) },
      { attempts: 30, delayMs: 500 },
    );
    sales.set(tx, statuses);
    expect([200, 409]).toContain(final.status);
  });
  const restart = (async () => {
    await sleep(3_000);
    await bouncer.stop();
    await sleep(1_000);
    await bouncer.start();
  })();
  await Promise.all([webhooks, api, restart]);

  // A refusal during the restart may come after the event was stored (the commit went through,
  // its answer did not): the provider delivers again what got a 5xx, and the redelivery is
  // acknowledged without applying anything twice.
  const refused = [...deliveries].filter(([, d]) => !d.acked);
  for (const [eventId, d] of refused) {
    let ok = false;
    for (let a = 0; a < 20 && !ok; a++) {
      ok =
        (await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers })).status ===
        200;
      if (!ok) await sleep(500);
    }
    expect(ok, `redelivery of ${eventId}`).toBe(true);
  }
  // The lost connection is a retryable 503 (or no answer while nothing listens), never a 500.
  expect(refusals.filter((s) => s !== 503 && s !== 0)).toEqual([]);
  expect([...sales.values()].flat().filter((s) => s !== 200 && s !== 409 && s !== 503 && s !== 0)).toEqual([]);
  const checkouts = [...deliveries.keys()].filter((k) => !k.startsWith('evt_pbr')).length;
  const refunds = deliveries.size - checkouts;

  await waitFor('every acknowledged webhook processed', 90_000, async () => (await pendingWebhooks(env.db)) === 0);
  const { rows: events } = await env.db.pool.query<{ dedupe_key: string; status: string }>(
    `select dedupe_key, status from webhook_event where program_id = $1 and dedupe_key like 'evt_pb%'`,
    [f.programId],
  );
  expect(new Set(events.map((e) => e.dedupe_key))).toEqual(new Set(deliveries.keys()));
  expect(events.length).toBe(deliveries.size);
  expect(events.filter((e) => e.status !== 'processed')).toEqual([]);
  const {
    rows: [w],
  } = await env.db.pool.query(
    `select count(*)::int as sales, count(c.id)::int as commissions
       from sale s left join commission c on c.sale_id = s.id where s.transaction_id like 'pi_pb%'`,
  );
  expect(w).toEqual({ sales: checkouts, commissions: checkouts });
  const {
    rows: [r],
  } = await env.db.pool.query(`select count(*)::int as n from refund where refund_id like 're_pb%'`);
  expect(r.n).toBe(refunds);
  const { rows: apiRows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'api-pb-%'`,
  );
  expect(new Set(apiRows.map((x) => x.transaction_id))).toEqual(new Set(sales.keys()));
  expect(await ledgerViolations(env.db)).toEqual({});
  expect(checkouts + sales.size).toBeGreaterThan(100);
  const retried = [...sales.values()].filter((s) => s.length > 1).length;
  console.log(
    `pgbouncer (transaction mode, restarted): ${checkouts} checkouts and ${refunds} refunds, ${refused.length} delivered again after a 5xx; ${sales.size} API sales (${retried} retried)`,
  );
});
