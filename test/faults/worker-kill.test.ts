/**
 * SIGKILL the worker process while webhooks and API sales flow, start it again: BullMQ's stalled
 * check hands the killed worker's active jobs to the new one, the inbox sweeper covers the rest,
 * and the database keys make every effect happen exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signedStripeCheckout, signedStripeRefund } from '../helpers/load-fixture.ts';
import { Redis } from 'ioredis';
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

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['http', 'worker'], env: { JOB_WAIT_TIMEOUT_MS: '4000' } });
});
afterAll(async () => {
  await env?.close();
});

test('a worker killed mid-load and restarted: every accepted event and sale processed exactly once', async () => {
  const f = env.fixture;
  const url = env.http.url;
  const acked = new Set<number>();
  const refundsAcked = new Set<number>();
  const sales = new Map<string, number[]>();
  let worker = env.procs.find((p) => p.role === 'worker');
  let killedAt = 0;

  const webhooks = loadFor(9_000, 6, 4_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_wk${i}`,
      paymentIntent: `pi_wk${i}`,
      amountCents: 5_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const r = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers });
    if (r.status === 200) acked.add(i);
    // Every third checkout also gets a partial refund, delivered right after it (maybe before
    // its sale exists: the refund job retries until it does).
    if (r.status === 200 && i % 3 === 0) {
      const rf = signedStripeRefund(f, {
        eventId: `evt_wkr${i}`,
        refundId: `re_wk${i}`,
        paymentIntent: `pi_wk${i}`,
        amountCents: 1_000,
      });
      const rr = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: rf.body, headers: rf.headers });
      if (rr.status === 200) refundsAcked.add(i);
    }
  });
  const api = loadFor(9_000, 4, 2_000, async (i) => {
    const tx = `api-wk-${i}`;
    const { final, statuses } = await sendSaleWithRetry(
      url,
      f.liveKey,
      { transaction_id: tx, amount_cents: 7_000 + i, customer_key: f.customerKey((i * 7) % f.customers) },
      { attempts: 30, delayMs: 500 },
    );
    sales.set(tx, statuses);
    expect([200, 409]).toContain(final.status);
  });
  let activeAtKill = 0;
  const killer = (async () => {
    await sleep(2_500);
    activeAtKill = await activeJobs(env);
    killedAt = Date.now();
    worker?.signal('SIGKILL');
    await worker?.exited;
    await sleep(1_500);
    worker = await env.start('worker');
  })();
  await Promise.all([webhooks, api, killer]);
  expect(killedAt).toBeGreaterThan(0);
  // Jobs were running when the worker died: the stalled-job path is exercised, not only the queue.
  expect(activeAtKill).toBeGreaterThan(0);

  // Stalled jobs of the killed worker come back after their lock expires (BullMQ default 30 s).
  await waitFor('every acknowledged webhook processed', 90_000, async () => (await pendingWebhooks(env.db)) === 0);

  const { rows: events } = await env.db.pool.query<{ dedupe_key: string; status: string; attempts: number }>(
    `select dedupe_key, status, attempts from webhook_event where program_id = $1`,
    [f.programId],
  );
  const checkouts = events.filter((e) => e.dedupe_key.startsWith('evt_wk'));
  expect(checkouts.filter((e) => !e.dedupe_key.startsWith('evt_wkr')).length).toBe(acked.size);
  expect(checkouts.filter((e) => e.dedupe_key.startsWith('evt_wkr')).length).toBe(refundsAcked.size);
  expect(checkouts.every((e) => e.status === 'processed')).toBe(true);

  // One sale and one commission per acknowledged checkout; each acknowledged refund applied once.
  const {
    rows: [w],
  } = await env.db.pool.query(
    `select count(*)::int as sales, count(c.id)::int as commissions,
            coalesce(sum(c.amount_cents), 0)::bigint as commission_cents
       from sale s left join commission c on c.sale_id = s.id where s.transaction_id like 'pi_wk%'`,
  );
  expect(w.sales).toBe(acked.size);
  expect(w.commissions).toBe(acked.size);
  const expectedCents = [...acked].reduce((sum, i) => sum + Math.floor((2 * (5_000 + i) * 1_000 + 10_000) / 20_000), 0);
  expect(Number(w.commission_cents)).toBe(expectedCents);
  const {
    rows: [r],
  } = await env.db.pool.query(`select count(*)::int as n from refund where refund_id like 're_wk%'`);
  expect(r.n).toBe(refundsAcked.size);

  // API sales: a 2xx or 409 for each, one row each, including the ones answered 503 meanwhile.
  const { rows: apiRows } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'api-wk-%'`,
  );
  expect(new Set(apiRows.map((x) => x.transaction_id))).toEqual(new Set(sales.keys()));
  expect(await ledgerViolations(env.db)).toEqual({});
  // The kill really hit the load: some calls had to be retried, and the restarted worker ran jobs.
  const retried = [...sales.values()].filter((s) => s.length > 1).length;
  expect(acked.size + sales.size).toBeGreaterThan(100);
  console.log(
    `worker kill: ${activeAtKill} jobs active at the kill; ${acked.size} checkouts and ${refundsAcked.size} refunds acknowledged, ${sales.size} API sales (${retried} retried after a 503 or a network error); max inbox attempts ${Math.max(...events.map((e) => e.attempts))}`,
  );
});

/** Jobs BullMQ holds as active (taken by a worker) on the track and webhook queues right now. */
async function activeJobs(e: FaultEnv): Promise<number> {
  const r = new Redis(e.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const [a, b] = await Promise.all([r.llen(`${e.prefix}:track:active`), r.llen(`${e.prefix}:webhook:active`)]);
    return a + b;
  } finally {
    r.disconnect();
  }
}
