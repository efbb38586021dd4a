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
  const acked = new Set<number>();
  const refundsAcked = new Set<number>();
  const sales = new Map<string, number[]>();
  const webhooks = loadFor(8_000, 6, 3_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_pb${i}`,
      paymentIntent: `pi_pb${i}`,
      amountCents: 5_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const r = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers });
    if (r.status === 200) acked.add(i);
    if (r.status === 200 && i % 3 === 0) {
      const rf = signedStripeRefund(f, {
        eventId: `evt_pbr${i}`,
        refundId: `re_pb${i}`,
        paymentIntent: `pi_pb${i}`,
        amountCents: 1_000,
      });
      const rr = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: rf.body, headers: rf.headers });
      if (rr.status === 200) refundsAcked.add(i);
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

  await waitFor('every acknowledged webhook processed', 90_000, async () => (await pendingWebhooks(env.db)) === 0);
  const { rows: events } = await env.db.pool.query<{ dedupe_key: string; status: string }>(
    `select dedupe_key, status from webhook_event where program_id = $1 and dedupe_key like 'evt_pb%'`,
    [f.programId],
  );
  expect(events.filter((e) => !e.dedupe_key.startsWith('evt_pbr')).length).toBe(acked.size);
  expect(events.filter((e) => e.dedupe_key.startsWith('evt_pbr')).length).toBe(refundsAcked.size);
  expect(events.filter((e) => e.status !== 'processed')).toEqual([]);
  const {
    rows: [w],
  } = await env.db.pool.query(
    `select count(*)::int as sales, count(c.id)::int as commissions
       from sale s left join commission c on c.sale_id = s.id where s.transaction_id like 'pi_pb%'`,
  );
  expect(w).toEqual({ sales: acked.size, commissions: acked.size });
  const {
    rows: [r],
  } = await env.db.pool.query(`select count(*)::int as n from refund where refund_id like 're_pb%'`);
  expect(r.n).toBe(refundsAcked.size);
  const { rows: apiRows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'api-pb-%'`,
  );
  expect(new Set(apiRows.map((x) => x.transaction_id))).toEqual(new Set(sales.keys()));
  expect(await ledgerViolations(env.db)).toEqual({});
  expect(acked.size + sales.size).toBeGreaterThan(100);
  const retried = [...sales.values()].filter((s) => s.length > 1).length;
  console.log(
    `pgbouncer (transaction mode, restarted): ${acked.size} checkouts and ${refundsAcked.size} refunds acknowledged, ${sales.size} API sales (${retried} retried)`,
  );
});
