/**
 * SIGTERM the service (`serve`: HTTP and workers in one process) under load. It stops accepting
 * connections, lets the requests it accepted finish, lets running jobs complete, and exits 0.
 * Every 2xx has its row; jobs still queued are processed by the next process. With a drain period
 * (SHUTDOWN_DRAIN_MS) readiness turns 503 at once while new connections are still served.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import {
  createFaultEnv,
  ledgerViolations,
  loadFor,
  pendingWebhooks,
  rawRequest,
  send,
  sleep,
  waitFor,
  type FaultEnv,
  type RawReply,
} from './fault-env.ts';

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['serve'] });
});
afterAll(async () => {
  await env?.close();
});

/** One POST on its own connection, so a refused connection is told apart from a dropped request. */
const post = (url: string, path: string, body: string, headers: Record<string, string>) =>
  rawRequest(url, path, { body, headers });

test('SIGTERM under load: accepted requests finish, running jobs complete, nothing is lost', async () => {
  const f = env.fixture;
  const svc = env.http;
  const url = svc.url;
  const sales = new Map<number, RawReply>();
  const hooks = new Map<number, RawReply>();
  let termAt = 0;
  let exitAt = 0;
  void svc.exited.then(() => {
    exitAt = Date.now();
  });

  const saleLoad = loadFor(5_000, 8, 5_000, async (i) => {
    const out = await post(
      url,
      '/api/v1/track/sale',
      JSON.stringify({
        transaction_id: `term-${i}`,
        amount_cents: 6_000 + i,
        customer_key: f.customerKey(i % f.customers),
      }),
      { authorization: `Bearer ${f.liveKey}` },
    );
    sales.set(i, out);
    if (out.status === 0) await sleep(20);
  });
  const hookLoad = loadFor(5_000, 4, 5_000, async (i) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_term${i}`,
      paymentIntent: `pi_term${i}`,
      amountCents: 3_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    const out = await post(url, `/api/v1/webhooks/stripe/${f.programId}`, d.body, d.headers);
    hooks.set(i, out);
    if (out.status === 0) await sleep(20);
  });
  const terminate = (async () => {
    await sleep(2_000);
    termAt = Date.now();
    svc.signal('SIGTERM');
  })();
  await Promise.all([saleLoad, hookLoad, terminate]);
  const code = await svc.exited;
  const exitedAfterMs = exitAt - termAt;

  // A clean exit after draining, no forced exit.
  expect(code).toBe(0);
  expect(svc.output()).toContain('shutdown complete');
  const all = [...sales.values(), ...hooks.values()];
  // Accepted requests were answered (no 5xx); afterwards connections were refused. A connection
  // the kernel had queued but the process never accepted is reset when the listener closes: that
  // request never reached the service (checked below: no row), and the client retries it.
  expect(all.filter((o) => o.status >= 500)).toEqual([]);
  expect(
    [...new Set(all.filter((o) => o.status === 0).map((o) => o.error))].filter(
      (e) => e !== 'ECONNREFUSED' && e !== 'ECONNRESET',
    ),
  ).toEqual([]);
  const resetSales = [...sales].filter(([, o]) => o.error === 'ECONNRESET').map(([i]) => i);
  const resetHooks = [...hooks].filter(([, o]) => o.error === 'ECONNRESET').map(([i]) => i);
  const okSales = [...sales].filter(([, o]) => o.status === 200).map(([i]) => i);
  const okHooks = [...hooks].filter(([, o]) => o.status === 200).map(([i]) => i);
  expect(okSales.length).toBeGreaterThan(20);
  expect(all.filter((o) => o.status === 0).length).toBeGreaterThan(0); // the load did outlive the server

  // Every 2xx sale is committed, with its commission, before the process exited.
  const { rows } = await env.db.pool.query<{ transaction_id: string; commissions: number }>(
    `select s.transaction_id, count(c.id)::int as commissions from sale s left join commission c on c.sale_id = s.id where s.transaction_id like 'term-%' group by s.id`,
  );
  const committed = new Map(rows.map((r) => [Number(r.transaction_id.slice(5)), r.commissions]));
  expect(okSales.filter((i) => committed.get(i) !== 1)).toEqual([]);
  // ...and no sale exists for a request that was refused or reset: none was cut off mid-way.
  expect([...committed.keys()].filter((i) => sales.get(i)?.status !== 200)).toEqual([]);
  expect(resetSales.filter((i) => committed.has(i))).toEqual([]);
  // Every acknowledged webhook is in the inbox.
  const { rows: inbox } = await env.db.pool.query<{ dedupe_key: string }>(
    `select dedupe_key from webhook_event where dedupe_key like 'evt_term%'`,
  );
  const stored = new Set(inbox.map((r) => Number(r.dedupe_key.slice(8))));
  expect(okHooks.filter((i) => !stored.has(i))).toEqual([]);
  expect(resetHooks.filter((i) => stored.has(i))).toEqual([]);
  const pendingAtExit = await pendingWebhooks(env.db);

  // The next process picks up what was still queued: every acknowledged event processed once.
  await env.start('serve');
  await waitFor(
    'the queue left by the stopped process to drain',
    60_000,
    async () => (await pendingWebhooks(env.db)) === 0,
  );
  const { rows: hookSales } = await env.db.pool.query(
    `select count(*)::int as n from sale where transaction_id like 'pi_term%'`,
  );
  expect(hookSales[0].n).toBe(stored.size);
  expect(await ledgerViolations(env.db)).toEqual({});
  console.log(
    `sigterm: exited ${code} ${exitedAfterMs} ms after SIGTERM; ${okSales.length} sales and ${okHooks.length} webhooks answered 2xx, ${all.filter((o) => o.error === 'ECONNREFUSED').length} refused after close, ${resetSales.length + resetHooks.length} reset while queued in the kernel (never reached the service); ${pendingAtExit} acknowledged events left queued, processed by the next process`,
  );
});

test('SIGTERM drain: /readyz answers 503 "draining" at once, new connections are still served for SHUTDOWN_DRAIN_MS, then the process exits 0', async () => {
  const f = env.fixture;
  const svc = await env.start('serve', { SHUTDOWN_DRAIN_MS: '6000' });
  await waitFor('/readyz 200 before SIGTERM', 30_000, async () => (await send(svc.url, '/readyz')).status === 200);
  let exited = false;
  void svc.exited.then(() => {
    exited = true;
  });

  svc.signal('SIGTERM');
  // Readiness turns at once (load balancers stop sending), while the listener still accepts.
  await waitFor(
    '/readyz to answer 503 after SIGTERM',
    5_000,
    async () => (await send(svc.url, '/readyz')).status === 503,
  );
  const ready = await send(svc.url, '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({ status: 'unavailable', reasons: ['draining'] });
  // New connections (no keep-alive) are still accepted and served, writes included.
  const click = await post(
    svc.url,
    '/api/v1/track/click',
    JSON.stringify({ affiliate_url: `https://shop.example/?aff=${f.partnerCodes[0]}` }),
    {},
  );
  expect(click.status, JSON.stringify(click)).toBe(200);
  const sale = await post(
    svc.url,
    '/api/v1/track/sale',
    JSON.stringify({ transaction_id: 'drain-sale', amount_cents: 4_200, customer_key: f.customerKey(7) }),
    { authorization: `Bearer ${f.liveKey}` },
  );
  expect(sale.status, JSON.stringify(sale)).toBe(200);
  expect(exited).toBe(false);

  // Then it closes as before and exits cleanly.
  expect(await svc.exited).toBe(0);
  expect(svc.output()).toContain('"draining: /readyz answers 503');
  expect(svc.output()).toContain('shutdown complete');
  expect((await post(svc.url, '/healthz', '', {})).error).toBe('ECONNREFUSED');
  const { rows } = await env.db.pool.query(`select count(*)::int as n from sale where transaction_id = 'drain-sale'`);
  expect(rows[0]!.n).toBe(1);
});
