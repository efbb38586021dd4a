/**
 * PostgreSQL hung, not gone: the service's database connections (the HTTP process's and the
 * worker's) go through a TCP proxy that is frozen for 20 s, which is what a stopped server or a
 * network partition looks like to the service (the connections stay open, new ones are accepted,
 * nothing answers, no error arrives). The shared PostgreSQL itself is never stopped. Every request
 * must still be answered within its documented bound (README, Reliability: "Bounds on a hung
 * dependency"), and once the database answers again every acknowledged webhook and sale is applied
 * exactly once; what got a 503 and is retried (as providers and merchants do) is applied once too.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BASE_DATABASE_URL } from '../helpers/service-process.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
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

const HUNG_MS = 20_000;
/**
 * The documented bounds (README, Reliability), measured here from the client, so with its own
 * latency. Webhooks: DB_QUERY_TIMEOUT_MS (5 s, the default) plus the rate-limit check's own bound.
 */
const WEBHOOK_MS = 5_250;
/** JOB_WAIT_TIMEOUT_MS (10 s, the default) plus the rate-limit check's own bound. */
const TRACK_MS = 10_250;
const READYZ_MS = 1_000;
/** What the client may add on this shared two-core machine (spawn, event loop, JSON). */
const CLIENT_SLACK_MS = 400;

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

type Phase = 'before' | 'hung' | 'after';
/** `phase` when the request was sent, `answeredIn` when its answer came. */
type Call = { kind: 'webhook' | 'sale' | 'click' | 'readyz'; i: number; phase: Phase; answeredIn: Phase; reply: Reply };

test('PostgreSQL hung for 20 s: every request answered within its bound, nothing acknowledged lost', async () => {
  const f = env.fixture;
  const url = env.http.url;
  await waitFor('readiness before the fault', 30_000, async () => (await send(url, '/readyz')).status === 200);

  let phase: Phase = 'before';
  const calls: Call[] = [];
  const record = async (kind: Call['kind'], i: number, req: Promise<Reply>) => {
    const at = phase;
    const reply = await req;
    calls.push({ kind, i, phase: at, answeredIn: phase, reply });
  };
  const webhook = (i: number) => {
    const d = signedStripeCheckout(f, {
      eventId: `evt_pghung${i}`,
      paymentIntent: `pi_pghung${i}`,
      amountCents: 3_000 + i,
      customerKey: f.customerKey(i % f.customers),
    });
    return { path: `/api/v1/webhooks/stripe/${f.programId}`, body: d.body, headers: d.headers };
  };
  const saleBody = (i: number) => ({
    transaction_id: `pghung-${i}`,
    amount_cents: 5_000 + i,
    customer_key: f.customerKey((i * 7) % f.customers),
  });
  const until = () => phase === 'after';
  // A client's timeout far past every bound: a request held for the whole fault shows as such.
  const timeoutMs = HUNG_MS + 10_000;
  const webhooks = loadFor(until, 2, 10_000, async (i) => {
    const w = webhook(i);
    await record('webhook', i, send(url, w.path, { body: w.body, headers: w.headers, timeoutMs }));
    await sleep(50);
  });
  const sales = loadFor(until, 3, 10_000, async (i) => {
    await record(
      'sale',
      i,
      send(url, '/api/v1/track/sale', { body: saleBody(i), headers: bearer(f.liveKey), timeoutMs }),
    );
    await sleep(50);
  });
  // Three loops: during the hang a click waits out the job wait (10 s), so each loop sends one or two.
  const clicks = loadFor(until, 3, 10_000, async (i) => {
    const body = { affiliate_url: `https://shop.example/?aff=${f.partnerCodes[i % f.partnerCodes.length]}` };
    await record('click', i, send(url, '/api/v1/track/click', { body, timeoutMs }));
    await sleep(50);
  });
  const probes = loadFor(until, 1, 10_000, async (i) => {
    await record('readyz', i, send(url, '/readyz', { timeoutMs }));
    await sleep(500);
  });
  const fault = (async () => {
    await sleep(2_000);
    proxy.freeze();
    phase = 'hung';
    await sleep(HUNG_MS);
    proxy.thaw();
    phase = 'after';
  })();
  await Promise.all([webhooks, sales, clicks, probes, fault]);

  const of = (kind: Call['kind'], p?: Phase) => calls.filter((c) => c.kind === kind && (!p || c.phase === p));
  const slow = (cs: Call[], ms: number) =>
    cs
      .filter((c) => c.reply.ms > ms + CLIENT_SLACK_MS)
      .map((c) => `${c.kind} ${c.i}: ${c.reply.status} in ${Math.round(c.reply.ms)} ms`);
  const typed503 = {
    error: { code: 'service_unavailable', message: expect.any(String), retry_after_seconds: expect.any(Number) },
  };
  // Webhooks: acknowledged once stored, or a retryable 503 (the provider delivers it again) within the bound.
  // Sales and clicks: a success, or the typed, retryable 503, within the job wait.
  for (const [kind, bound] of [
    ['webhook', WEBHOOK_MS],
    ['sale', TRACK_MS],
    ['click', TRACK_MS],
  ] as const) {
    expect(slow(of(kind), bound)).toEqual([]);
    for (const c of of(kind)) {
      expect([200, 503]).toContain(c.reply.status);
      if (c.reply.status === 503) expect(c.reply.body).toEqual(typed503);
    }
    expect(of(kind, 'hung').filter((c) => c.reply.status === 503).length).toBeGreaterThan(0);
  }
  // /readyz: within 1 s, and 503 naming the database while it hangs.
  expect(slow(of('readyz'), READYZ_MS)).toEqual([]);
  const hungProbes = of('readyz', 'hung')
    .slice(1)
    .filter((c) => c.answeredIn === 'hung');
  expect(hungProbes.length).toBeGreaterThan(3);
  for (const c of hungProbes) {
    expect(c.reply.status).toBe(503);
    expect(c.reply.body.reasons).toContain('the database does not answer');
  }
  // Enough traffic ran into the fault to mean something.
  for (const kind of ['webhook', 'sale', 'click', 'readyz'] as const)
    expect(of(kind, 'hung').length).toBeGreaterThan(2);
  expect(of('sale', 'before').some((c) => c.reply.status === 200)).toBe(true);
  await waitFor(
    'readiness after the database answers',
    30_000,
    async () => (await send(url, '/readyz')).status === 200,
  );

  // The provider delivers again what got a 5xx; a redelivery of a row stored late answers 200 too.
  const refused = of('webhook').filter((c) => c.reply.status !== 200);
  for (const c of refused) {
    const w = webhook(c.i);
    let r: Reply = c.reply;
    for (let a = 0; a < 10 && r.status !== 200; a++) {
      r = await send(url, w.path, { body: w.body, headers: w.headers });
      if (r.status !== 200) await sleep(500);
    }
    expect(r.status).toBe(200);
  }
  // Every webhook, acknowledged at once or on redelivery, is applied exactly once.
  await waitFor('the inbox to drain', 60_000, async () => (await pendingWebhooks(env.db)) === 0);
  const { rows: hookSales } = await env.db.pool.query<{ transaction_id: string; n: number }>(
    `select transaction_id, count(*)::int as n from sale where transaction_id like 'pi_pghung%' group by 1`,
  );
  const applied = new Map(hookSales.map((r) => [Number(r.transaction_id.slice('pi_pghung'.length)), r.n]));
  const sent = of('webhook').map((c) => c.i);
  expect(sent.filter((i) => applied.get(i) !== 1)).toEqual([]);
  expect(hookSales.length).toBe(sent.length);

  // A merchant retries what got a 503 with the same transaction id (a 409 = recorded meanwhile).
  const failed = of('sale').filter((c) => c.reply.status !== 200);
  for (const c of failed) {
    const { final } = await sendSaleWithRetry(url, f.liveKey, saleBody(c.i), { attempts: 10 });
    expect([200, 409]).toContain(final.status);
  }
  const { rows: apiSales } = await env.db.pool.query<{ transaction_id: string; id: number; n: number }>(
    `select transaction_id, min(id)::int as id, count(*)::int as n from sale where transaction_id like 'pghung-%' group by 1`,
  );
  const byTx = new Map(apiSales.map((r) => [r.transaction_id, r]));
  for (const c of of('sale').filter((x) => x.reply.status === 200)) {
    expect(byTx.get(`pghung-${c.i}`)).toEqual({ transaction_id: `pghung-${c.i}`, id: c.reply.body.sale_id, n: 1 });
  }
  expect(apiSales.length).toBe(of('sale').length);
  expect(apiSales.every((r) => r.n === 1)).toBe(true);
  // Every click answered 200 is stored.
  const okClicks = of('click')
    .filter((c) => c.reply.status === 200)
    .map((c) => c.reply.body.click_id as string);
  const { rows: clickRows } = await env.db.pool.query(`select count(*)::int as n from click where id = any($1)`, [
    okClicks,
  ]);
  expect(clickRows[0].n).toBe(okClicks.length);
  expect(await ledgerViolations(env.db)).toEqual({});

  const worst = (cs: Call[]) => Math.round(Math.max(0, ...cs.map((c) => c.reply.ms)));
  const count = (kind: Call['kind'], status: number) =>
    of(kind, 'hung').filter((c) => c.reply.status === status).length;
  console.log(
    `postgres hung ${HUNG_MS / 1000} s: webhooks ${count('webhook', 200)}×200/${count('webhook', 503)}×503 (slowest ${worst(of('webhook'))} ms), ` +
      `sales ${count('sale', 200)}×200/${count('sale', 503)}×503 (slowest ${worst(of('sale'))} ms), ` +
      `clicks ${count('click', 200)}×200/${count('click', 503)}×503 (slowest ${worst(of('click'))} ms), ` +
      `/readyz ${count('readyz', 503)}×503 (slowest ${worst(of('readyz'))} ms); ` +
      `${refused.length} webhooks delivered again and ${failed.length} sales retried, all applied once`,
  );
}, 150_000);
