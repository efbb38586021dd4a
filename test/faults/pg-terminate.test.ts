/**
 * Drop every PostgreSQL connection of the service's database, repeatedly, under load. Each call
 * either succeeds (the job is retried on a fresh connection) or gets a clear 5xx the client can
 * retry; a transaction cut in the middle leaves nothing behind, so there is never a sale without
 * its commission or a refund without its deduction.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminQuery } from '../helpers/temp-database.ts';
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

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['http', 'worker'] });
});
afterAll(async () => {
  await env?.close();
});

/** A 5xx the client can act on: the platform `internal_error` or the typed `service_unavailable`. */
function isClearServerError(r: Reply): boolean {
  if (r.status === 500) return r.body?.error?.code === 'internal_error' && r.body?.data === null;
  if (r.status === 503)
    return r.body?.error?.code === 'service_unavailable' && typeof r.body?.error?.retry_after_seconds === 'number';
  return false;
}

test('connections terminated mid-load: every call succeeds or fails cleanly, no half-written sale', async () => {
  const f = env.fixture;
  const url = env.http.url;
  const replies: Array<{ kind: string; reply: Reply }> = [];
  const saleTx: string[] = [];
  const hooksAcked = new Set<number>();
  let terminated = 0;

  // First some sales to refund while the connections drop.
  for (let i = 0; i < 40; i++) {
    const r = await send(url, '/api/v1/track/sale', {
      body: { transaction_id: `pre-${i}`, amount_cents: 10_000, customer_key: f.customerKey(i) },
      headers: bearer(f.liveKey),
    });
    expect(r.status).toBe(200);
  }
  const sales = loadFor(8_000, 4, 3_000, async (i) => {
    const tx = `pg-${i}`;
    saleTx.push(tx);
    const reply = await send(url, '/api/v1/track/sale', {
      body: { transaction_id: tx, amount_cents: 3_000 + i, customer_key: f.customerKey((i * 11) % f.customers) },
      headers: bearer(f.liveKey),
    });
    replies.push({ kind: 'sale', reply });
  });
  const refunds = loadFor(8_000, 2, 400, async (i) => {
    const reply = await send(url, '/api/v1/track/refund', {
      body: { transaction_id: `pre-${i % 40}`, refund_amount_cents: 100, refund_id: `pgr-${i}` },
      headers: bearer(f.liveKey),
    });
    replies.push({ kind: 'refund', reply });
  });
  const hooks = loadFor(8_000, 2, 2_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_pg${i}`,
      paymentIntent: `pi_pg${i}`,
      amountCents: 2_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const reply = await send(url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers });
    replies.push({ kind: 'webhook', reply });
    if (reply.status === 200) hooksAcked.add(i);
  });
  const terminator = (async () => {
    await sleep(1_500);
    for (let k = 0; k < 12; k++) {
      const r = await adminQuery(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = '${env.db.name}' and pid <> pg_backend_pid()`,
      );
      terminated += r.rows[0].n;
      await sleep(400);
    }
  })();
  await Promise.all([sales, refunds, hooks, terminator]);
  expect(terminated).toBeGreaterThan(0);

  // Every answer was a success, a duplicate after a retry, or a clear 5xx. Never anything else.
  const unclear = replies.filter(({ reply: r }) => !(r.status === 200 || r.status === 409 || isClearServerError(r)));
  expect(unclear.map((u) => ({ kind: u.kind, status: u.reply.status, body: u.reply.body }))).toEqual([]);
  const failed = replies.filter(({ reply: r }) => r.status >= 500);

  // Clients retry what failed; the service answers normally again.
  for (const [i, tx] of saleTx.entries()) {
    const { final } = await sendSaleWithRetry(
      url,
      f.liveKey,
      { transaction_id: tx, amount_cents: 3_000 + i, customer_key: f.customerKey((i * 11) % f.customers) },
      { attempts: 10, delayMs: 300 },
    );
    expect([200, 409]).toContain(final.status);
  }
  await env.db.pool.query('select 1').catch(() => {}); // the test's own pool lost its connections too
  await waitFor('the inbox to drain', 60_000, async () => (await pendingWebhooks(env.db)) === 0);

  const {
    rows: [s],
  } = await env.db.pool.query(`select count(*)::int as n from sale where transaction_id like 'pg-%'`);
  expect(s.n).toBe(saleTx.length);
  const { rows: hookSales } = await env.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where transaction_id like 'pi_pg%'`,
  );
  const recorded = new Set(hookSales.map((r) => Number(r.transaction_id.slice(5))));
  expect([...hooksAcked].filter((i) => !recorded.has(i))).toEqual([]);
  // Refunds: each one answered "applied" has its row; the sums on every sale match its rows.
  const applied = replies.filter(
    (r) => r.kind === 'refund' && r.reply.status === 200 && ['refunded', 'reversed'].includes(r.reply.body?.status),
  ).length;
  const {
    rows: [rf],
  } = await env.db.pool.query(`select count(*)::int as n from refund where refund_id like 'pgr-%'`);
  expect(rf.n).toBeGreaterThanOrEqual(applied);
  expect(await ledgerViolations(env.db)).toEqual({});
  console.log(
    `pg terminate: ${terminated} connections terminated; ${replies.length} calls, ${failed.length} answered a clean 5xx (${failed.filter((x) => x.reply.status === 503).length} × 503), all retried to success`,
  );
});
