/**
 * The hung-dependency scenario shared by redis-hung and pg-hung: webhooks, sales, clicks and
 * /readyz probes before, during and after a hang the caller starts and ends (`freeze`, `thaw`),
 * each call timed and tagged with the phase it was sent and answered in; then the checks that
 * everything acknowledged was applied exactly once, whatever hung.
 */
import { expect } from 'vitest';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import {
  bearer,
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

export type Phase = 'before' | 'hung' | 'after';
type Kind = 'webhook' | 'sale' | 'click' | 'readyz';
/** `phase` when the request was sent, `answeredIn` when its answer came. */
export type Call = { kind: Kind; i: number; phase: Phase; answeredIn: Phase; reply: Reply };

/** What the client may add to a bound on this shared two-core machine (spawn, event loop, JSON). */
const CLIENT_SLACK_MS = 400;

export type HungRun = {
  of(kind: Kind, phase?: Phase): Call[];
  /** The signed Stripe delivery of webhook `i` (the same bytes every time: a redelivery). */
  webhook(i: number): { path: string; body: string; headers: Record<string, string> };
  saleBody(i: number): Record<string, unknown>;
};

/**
 * Runs the traffic, hangs the dependency 2 s in for `hungMs`, and returns once the traffic has
 * stopped after the thaw. `tag` keeps this scenario's transaction ids apart from others'.
 */
export async function runUnderHang(
  env: FaultEnv,
  o: { tag: string; hungMs: number; clickLoops: number; freeze(): void; thaw(): void },
): Promise<HungRun> {
  const f = env.fixture;
  const url = env.http.url;
  await waitFor('readiness before the fault', 30_000, async () => (await send(url, '/readyz')).status === 200);
  let phase: Phase = 'before';
  const calls: Call[] = [];
  const record = async (kind: Kind, i: number, req: Promise<Reply>) => {
    const at = phase;
    const reply = await req;
    calls.push({ kind, i, phase: at, answeredIn: phase, reply });
  };
  const run: HungRun = {
    of: (kind, p) => calls.filter((c) => c.kind === kind && (!p || c.phase === p)),
    webhook(i) {
      const d = signedStripeCheckout(f, {
        eventId: `evt_${o.tag}${i}`,
        paymentIntent: `pi_${o.tag}${i}`,
        amountCents: 3_000 + i,
        customerKey: f.customerKey(i % f.customers),
      });
      return { path: `/api/v1/webhooks/stripe/${f.programId}`, body: d.body, headers: d.headers };
    },
    saleBody: (i) => ({
      transaction_id: `${o.tag}-${i}`,
      amount_cents: 5_000 + i,
      customer_key: f.customerKey((i * 7) % f.customers),
    }),
  };
  const until = () => phase === 'after';
  // A client's timeout far past every bound: a request held for the whole fault shows as such.
  const timeoutMs = o.hungMs + 10_000;
  const loop = (kind: Kind, loops: number, pauseMs: number, call: (i: number) => Promise<Reply>) =>
    loadFor(until, loops, 10_000, async (i) => {
      await record(kind, i, call(i));
      await sleep(pauseMs);
    });
  const fault = (async () => {
    await sleep(2_000);
    o.freeze();
    phase = 'hung';
    await sleep(o.hungMs);
    o.thaw();
    phase = 'after';
  })();
  await Promise.all([
    loop('webhook', 2, 50, (i) => {
      const w = run.webhook(i);
      return send(url, w.path, { body: w.body, headers: w.headers, timeoutMs });
    }),
    loop('sale', 3, 50, (i) =>
      send(url, '/api/v1/track/sale', { body: run.saleBody(i), headers: bearer(f.liveKey), timeoutMs }),
    ),
    loop('click', o.clickLoops, 50, (i) =>
      send(url, '/api/v1/track/click', {
        body: { affiliate_url: `https://shop.example/?aff=${f.partnerCodes[i % f.partnerCodes.length]}` },
        timeoutMs,
      }),
    ),
    loop('readyz', 1, 500, () => send(url, '/readyz', { timeoutMs })),
    fault,
  ]);
  return run;
}

/** The calls answered later than `boundMs` (plus the client's slack), described for a failure message. */
export function slowCalls(cs: Call[], boundMs: number): string[] {
  return cs
    .filter((c) => c.reply.ms > boundMs + CLIENT_SLACK_MS)
    .map((c) => `${c.kind} ${c.i}: ${c.reply.status} in ${Math.round(c.reply.ms)} ms`);
}

/** A success, or the typed, retryable 503, every call of `kind`; some 503 while it hung. */
export function expectSuccessOrTyped503(run: HungRun, kind: Kind): void {
  for (const c of run.of(kind)) {
    expect([200, 503]).toContain(c.reply.status);
    if (c.reply.status === 503)
      expect(c.reply.body).toEqual({
        error: { code: 'service_unavailable', message: expect.any(String), retry_after_seconds: expect.any(Number) },
      });
  }
  expect(run.of(kind, 'hung').filter((c) => c.reply.status === 503).length).toBeGreaterThan(0);
}

/** /readyz within 1 s, and 503 naming `reason` for every probe sent and answered while it hung. */
export function expectReadyzBounded(run: HungRun, reason: string): void {
  expect(slowCalls(run.of('readyz'), 1_000)).toEqual([]);
  // The first may have started just before the stop.
  const hungProbes = run
    .of('readyz', 'hung')
    .slice(1)
    .filter((c) => c.answeredIn === 'hung');
  expect(hungProbes.length).toBeGreaterThan(3);
  for (const c of hungProbes) {
    expect(c.reply.status).toBe(503);
    expect(c.reply.body.reasons).toContain(reason);
  }
}

/**
 * After the hang: every webhook sent is applied exactly once (the caller has delivered again what
 * got a 5xx), every sale answered 200 is stored once under its id, the 503'd sales retried by the
 * merchant end in 200/409 and are stored once too, every click answered 200 is stored, and the
 * ledger holds. Returns how many sales were retried.
 */
export async function expectAppliedOnce(env: FaultEnv, run: HungRun, tag: string): Promise<number> {
  const url = env.http.url;
  await waitFor('the inbox to drain', 60_000, async () => (await pendingWebhooks(env.db)) === 0);
  const { rows: hookSales } = await env.db.pool.query<{ transaction_id: string; n: number }>(
    `select transaction_id, count(*)::int as n from sale where transaction_id like $1 group by 1`,
    [`pi_${tag}%`],
  );
  const applied = new Map(hookSales.map((r) => [Number(r.transaction_id.slice(`pi_${tag}`.length)), r.n]));
  const sent = run.of('webhook').map((c) => c.i);
  expect(sent.filter((i) => applied.get(i) !== 1)).toEqual([]);
  expect(hookSales.length).toBe(sent.length);

  // A merchant retries what got a 503 with the same transaction id (a 409 = recorded meanwhile).
  const failed = run.of('sale').filter((c) => c.reply.status !== 200);
  for (const c of failed) {
    const { final } = await sendSaleWithRetry(url, env.fixture.liveKey, run.saleBody(c.i), { attempts: 10 });
    expect([200, 409]).toContain(final.status);
  }
  const { rows: apiSales } = await env.db.pool.query<{ transaction_id: string; id: number; n: number }>(
    `select transaction_id, min(id)::int as id, count(*)::int as n from sale where transaction_id like $1 group by 1`,
    [`${tag}-%`],
  );
  const byTx = new Map(apiSales.map((r) => [r.transaction_id, r]));
  for (const c of run.of('sale').filter((x) => x.reply.status === 200))
    expect(byTx.get(`${tag}-${c.i}`)).toEqual({ transaction_id: `${tag}-${c.i}`, id: c.reply.body.sale_id, n: 1 });
  expect(apiSales.length).toBe(run.of('sale').length);
  expect(apiSales.every((r) => r.n === 1)).toBe(true);

  const okClicks = run
    .of('click')
    .filter((c) => c.reply.status === 200)
    .map((c) => c.reply.body.click_id as string);
  const { rows: clickRows } = await env.db.pool.query(`select count(*)::int as n from click where id = any($1)`, [
    okClicks,
  ]);
  expect(clickRows[0].n).toBe(okClicks.length);
  expect(await ledgerViolations(env.db)).toEqual({});
  return failed.length;
}

/** One line for the log: what each kind got while it hung, and its slowest answer. */
export function describeRun(run: HungRun): string {
  const worst = (kind: Kind) => Math.round(Math.max(0, ...run.of(kind).map((c) => c.reply.ms)));
  const count = (kind: Kind, status: number) => run.of(kind, 'hung').filter((c) => c.reply.status === status).length;
  return (['webhook', 'sale', 'click', 'readyz'] as const)
    .map((k) => `${k} ${count(k, 200)}×200/${count(k, 503)}×503 (slowest ${worst(k)} ms)`)
    .join(', ');
}
