/**
 * Production mode with a hung Redis: the service's Redis connections go through a proxy that can
 * be frozen (connections open, nothing answers, no error: a network partition). Each route answers
 * within its bound (docs/operations.md, Reliability: "Bounds on a hung dependency") and what was acknowledged
 * is applied once Redis answers again. Embedded mode has no Redis to hang: the file runs in
 * production mode only. The process-level twin (SIGSTOP on a real redis-server for 25 s) is
 * test/faults/redis-hung.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import pTimeout from 'p-timeout';
import {
  createHarness,
  createProgramFixture,
  bearer,
  clickAndLead,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { waitFor } from '../helpers/wait-for.ts';

const production = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);
const JOB_WAIT_MS = 1_500;
/** The bound's own margin for a shared, busy test machine. */
const SLACK_MS = 400;

describe.runIf(production)('a hung Redis holds no request', () => {
  let proxy: FreezableProxy;
  let h: Harness;
  let f: Fixture;
  beforeAll(async () => {
    proxy = await createFreezableProxy(process.env.REDIS_URL!);
    h = await createHarness({
      REDIS_URL: proxy.url,
      JOB_WAIT_TIMEOUT_MS: String(JOB_WAIT_MS),
      // API calls through the queue, as an `http` process sends them: run in place (the default in
      // a process that is its own worker), they never touch Redis (test/workers/track-in-place.test.ts).
      API_CALLS_IN_PLACE: 'false',
      // Each test is its own client (X-Forwarded-For), with a small per-client click budget.
      TRUST_PROXY: '1',
      CLICK_LIMIT_PER_MINUTE: '3',
    });
    f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, { signing_secret: stripeKit.secret });
  });
  afterEach(() => proxy.thaw());
  afterAll(async () => {
    proxy?.thaw();
    await h?.close();
    await proxy?.close();
  });

  /** The request's answer and how long it took; a request still unanswered after 5 s fails the test. */
  const timed = async <T>(call: Promise<T>): Promise<[T, number]> => {
    const t = performance.now();
    const out = await pTimeout(call, { milliseconds: 5_000, message: 'no answer within 5 s' });
    return [out, performance.now() - t];
  };

  test('/readyz answers 503 within 1 s while Redis hangs, and 200 once it answers again', async () => {
    expect((await h.request('/readyz')).status).toBe(200);
    proxy.freeze();
    const [hung, ms] = await timed(h.request('/readyz'));
    expect(ms).toBeLessThan(1_000);
    expect(hung.status).toBe(503);
    expect(hung.body).toMatchObject({ status: 'unavailable', database: true, queue_ok: false });
    expect(hung.body.reasons).toContain('the queue (bullmq) does not answer');
    proxy.thaw();
    await waitFor(async () => (await h.request('/readyz')).status === 200, 10_000);
  });

  test('a webhook is acknowledged from the inbox within 2 s, and processed once Redis answers', async () => {
    const customerKey = 'hung-hook-customer';
    await clickAndLead(h, f, customerKey);
    const { event, transactionId } = stripeKit.payment({
      ref: 'hung-hook',
      amountCents: 7_000,
      keys: { customerKey, programId: f.programId },
    });
    const raw = JSON.stringify(event);
    proxy.freeze();
    const [ack, ms] = await timed(
      h.request(`/api/v1/webhooks/stripe/${f.programId}`, { raw, headers: stripeKit.sign(raw, h.clock.now) }),
    );
    expect(ms).toBeLessThan(2_000);
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ received: true, duplicate: false, status: 'pending' });
    proxy.thaw();
    const sales = async () =>
      (await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales.filter(
        (s: { transaction_id: string }) => s.transaction_id === transactionId,
      );
    await waitFor(async () => (await sales()).length === 1, 15_000);
    const { webhook_event: row } = await h.admin('GET', `/programs/${f.programId}/webhook-events/${ack.body.id}`);
    expect(row.status).toBe('processed');
  });

  test('a sale answers the retryable 503 within the job wait; retried once Redis answers, it is recorded once', async () => {
    const customerKey = 'hung-sale-customer';
    await clickAndLead(h, f, customerKey);
    const body = { transaction_id: 'hung-sale-1', amount_cents: 9_900, customer_key: customerKey };
    const sale = () => h.request('/api/v1/track/sale', { body, headers: bearer(f.liveKey) });
    proxy.freeze();
    const [hung, ms] = await timed(sale());
    expect(ms).toBeLessThan(JOB_WAIT_MS + 250 + SLACK_MS);
    expect(hung.status).toBe(503);
    expect(hung.body).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), retry_after_seconds: expect.any(Number) },
    });
    expect(hung.headers.get('retry-after')).toBe(String(hung.body.error.retry_after_seconds));
    proxy.thaw();
    // The merchant retries with the same transaction id: recorded now, or already (the job that
    // reached Redis late ran): 409 with the first sale's id, never a second sale.
    const retried = await waitFor(async () => {
      const r = await sale();
      return r.status === 503 ? false : r;
    }, 15_000);
    expect([200, 409]).toContain(retried.status);
    const recorded = (await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales.filter(
      (s: { transaction_id: string }) => s.transaction_id === body.transaction_id,
    );
    expect(recorded).toHaveLength(1);
  });

  test('the per-client limit decides in memory within its bound while Redis hangs, and still limits', async () => {
    const client = { 'x-forwarded-for': '203.0.113.9' };
    const click = () =>
      h.request('/api/v1/track/click', {
        body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
        headers: client,
      });
    proxy.freeze();
    // Within the budget (3): the limiter lets them through, the queue cannot take them: 503.
    for (let i = 0; i < 3; i++) {
      const [r, ms] = await timed(click());
      expect(r.status).toBe(503);
      expect(ms).toBeLessThan(JOB_WAIT_MS + 250 + SLACK_MS);
    }
    // Past it: refused by the stand-in limiter, without waiting for Redis.
    const [limited, ms] = await timed(click());
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(ms).toBeLessThan(250 + SLACK_MS);
  });
});
