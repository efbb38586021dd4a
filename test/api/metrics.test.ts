import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';
import { scrapeMetrics, type Scrape } from '../helpers/scrape-metrics.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { refuseParking } from '../helpers/refuse-parking.ts';

const TOKEN = 'metrics-token-0123456789';

// Deliveries are held at this gate while a test looks at the outbox and the notify queue.
let gate: { promise: Promise<void>; open(): void } | null = null;
const hold = () => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  gate = { promise, open };
};

let sendsStarted = 0;
const h = useHarness(
  // A failing webhook stays pending through two backoffs (1.5 s, 3 s) before it is marked failed.
  { METRICS_TOKEN: TOKEN, WEBHOOK_ATTEMPTS: '3', WEBHOOK_RETRY_BASE_MS: '1500', SWEEP_INTERVAL_MS: '200' },
  {
    notificationSender: {
      async send() {
        sendsStarted++;
        await gate?.promise;
      },
    },
  },
);
let base = '';
let f: Fixture;
beforeAll(async () => {
  base = await h.listen();
  f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, { signing_secret: stripeKit.secret });
});
// Runs before the harness closes (after-hooks run in reverse order of registration).
afterAll(() => {
  gate?.open();
});

const scrape = () => scrapeMetrics(h, TOKEN);
const sendWebhook = async (event: object) => {
  const body = JSON.stringify(event);
  const res = await fetch(`${base}/api/v1/webhooks/stripe/${f.programId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...stripeKit.sign(body, h.clock.now) },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: number };
};
const inboxRow = async (id: number) =>
  (await h.admin('GET', `/programs/${f.programId}/webhook-events?limit=500`))['webhook-events'].find(
    (r: { id: number }) => r.id === id,
  );
const delta = (before: Scrape, after: Scrape, name: string, labels?: Record<string, string>) =>
  after.value(name, labels) - before.value(name, labels);
const USD = (provider: string) => ({ provider, currency: 'USD' });

describe('GET /metrics', () => {
  test('needs its own token: none, a wrong one and an API key are refused', async () => {
    expect((await h.request('/metrics')).status).toBe(401);
    expect((await h.request('/metrics', { headers: bearer('not-the-metrics-token') })).status).toBe(401);
    expect((await h.request('/metrics', { headers: bearer(f.liveKey) })).body.error.code).toBe('unauthorized');
  });

  test('an API sale and refund move the money counters, the HTTP histogram, the track jobs and (while delivery is held) the outbox', async () => {
    const before = await scrape();
    await clickAndLead(h, f, 'metrics-user-1');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'm-tx-1', amount_cents: 10_000, customer_key: 'metrics-user-1' },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    hold();
    const sendsBefore = sendsStarted;
    const refund = await h.request('/api/v1/track/refund', {
      body: { transaction_id: 'm-tx-1', refund_amount_cents: 4_000 },
      headers: bearer(f.liveKey),
    });
    expect(refund.body).toMatchObject({ status: 'refunded', deductionAmount: 400 });
    h.clock.now = new Date(h.clock.now.getTime() + 30_000);

    // The refund's job delivers its notification itself (no notify job unless delivery fails).
    await waitFor(() => sendsStarted > sendsBefore);
    const held = await scrape();
    expect(delta(before, held, 'tracker_sales_total', USD('none'))).toBe(1);
    expect(delta(before, held, 'tracker_sale_amount_cents_total', USD('none'))).toBe(10_000);
    expect(delta(before, held, 'tracker_commission_amount_cents_total', USD('none'))).toBe(1_000);
    expect(delta(before, held, 'tracker_refunds_total', USD('none'))).toBe(1);
    expect(delta(before, held, 'tracker_refund_amount_cents_total', USD('none'))).toBe(4_000);
    expect(delta(before, held, 'tracker_commission_reversed_cents_total', USD('none'))).toBe(400);
    expect(
      held.count('tracker_http_request_duration_seconds', {
        route: '/api/v1/track/sale',
        status: '200',
        method: 'POST',
      }) -
        before.count('tracker_http_request_duration_seconds', {
          route: '/api/v1/track/sale',
          status: '200',
          method: 'POST',
        }),
    ).toBe(1);
    // click, lead, sale, refund
    expect(delta(before, held, 'tracker_jobs_total', { queue: 'track', outcome: 'completed' })).toBe(4);
    expect(
      held.count('tracker_job_duration_seconds', { queue: 'track' }) -
        before.count('tracker_job_duration_seconds', { queue: 'track' }),
    ).toBe(4);
    expect(held.value('tracker_notification_outbox_pending')).toBe(1);
    expect(held.value('tracker_notification_outbox_lag_seconds')).toBeGreaterThanOrEqual(30);

    gate?.open();
    const drained = await waitFor(async () => {
      const s = await scrape();
      return (
        s.value('tracker_notification_outbox_pending') === 0 &&
        s.value('tracker_queue_jobs', { queue: 'notify', state: 'active' }) === 0 &&
        s
      );
    });
    expect(drained.value('tracker_notification_outbox_lag_seconds')).toBe(0);
  });

  test('a provider sale webhook counts the delivery, the webhook job and a stripe sale', async () => {
    await clickAndLead(h, f, 'metrics-user-2');
    const before = await scrape();
    const payment = stripeKit.payment({
      ref: 'metrics2',
      amountCents: 5_000,
      keys: { customerKey: 'metrics-user-2', programId: f.programId },
    });
    const { id } = await sendWebhook(payment.event);
    await waitFor(async () => (await inboxRow(id))?.status === 'processed');
    const after = await waitFor(async () => {
      const s = await scrape();
      return delta(before, s, 'tracker_jobs_total', { queue: 'webhook', outcome: 'completed' }) === 1 && s;
    });
    expect(delta(before, after, 'tracker_webhooks_received_total', { provider: 'stripe', result: 'pending' })).toBe(1);
    expect(delta(before, after, 'tracker_sales_total', USD('stripe'))).toBe(1);
    expect(delta(before, after, 'tracker_sale_amount_cents_total', USD('stripe'))).toBe(5_000);
    expect(delta(before, after, 'tracker_commission_amount_cents_total', USD('stripe'))).toBe(500);
    expect(
      after.count('tracker_http_request_duration_seconds', {
        route: '/api/v1/webhooks/:provider/:programId',
        status: '200',
      }) -
        before.count('tracker_http_request_duration_seconds', {
          route: '/api/v1/webhooks/:provider/:programId',
          status: '200',
        }),
    ).toBe(1);

    const tampered = await fetch(`${base}/api/v1/webhooks/stripe/${f.programId}`, {
      method: 'POST',
      body: '{"id":"evt_x"}',
      headers: { 'stripe-signature': 't=1,v1=00' },
    });
    expect(tampered.status).toBe(400);
    expect(delta(before, await scrape(), 'tracker_webhooks_rejected_total', { provider: 'stripe' })).toBe(1);
  });

  test('a webhook that keeps failing shows as pending with an age, then as failed in the inbox, the jobs and the queue', async () => {
    const before = await scrape();
    expect(before.value('tracker_webhook_inbox_rows', { status: 'pending' })).toBe(0);
    expect(before.value('tracker_webhook_inbox_oldest_pending_age_seconds')).toBe(0);
    // A refund of a payment no sale event ever named, while the database refuses to park it (a real
    // failure): retried, then failed.
    const restore = await refuseParking(h.ctx.db.em.fork());
    const { id } = await sendWebhook(
      stripeKit.refund({
        ref: 'metrics-missing',
        saleAmountCents: 1_000,
        refundId: 're_metrics_missing',
        amountCents: 1_000,
        totalCents: 1_000,
      }),
    );
    await waitFor(async () => {
      const r = await inboxRow(id);
      return r?.status === 'pending' && r.attempts >= 1;
    });
    h.clock.now = new Date(h.clock.now.getTime() + 10_000);
    const pending = await scrape();
    expect(pending.value('tracker_webhook_inbox_rows', { status: 'pending' })).toBe(1);
    expect(pending.value('tracker_webhook_inbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(10);

    await waitFor(async () => (await inboxRow(id))?.status === 'failed', 15_000).finally(restore);
    const after = await waitFor(async () => {
      const s = await scrape();
      return delta(before, s, 'tracker_jobs_total', { queue: 'webhook', outcome: 'failed' }) === 1 && s;
    });
    expect(delta(before, after, 'tracker_jobs_total', { queue: 'webhook', outcome: 'retry' })).toBe(2);
    expect(delta(before, after, 'tracker_webhook_inbox_rows', { status: 'failed' })).toBe(1);
    expect(after.value('tracker_webhook_inbox_rows', { status: 'pending' })).toBe(0);
    expect(after.value('tracker_webhook_inbox_oldest_pending_age_seconds')).toBe(0);
    expect(delta(before, after, 'tracker_queue_jobs', { queue: 'webhook', state: 'failed' })).toBe(1);
  });

  test('rate-limit rejections are counted', async () => {
    const limited = await createProgramFixture(h, { rate_limit_per_minute: 1 });
    const before = await scrape();
    const call = () =>
      h.request('/api/v1/track/refund', { body: { transaction_id: 'none' }, headers: bearer(limited.liveKey) });
    expect((await call()).status).toBe(404);
    expect((await call()).status).toBe(429);
    expect(delta(before, await scrape(), 'tracker_rate_limit_rejections_total', { limiter: 'api_key' })).toBe(1);
  });

  test('every series has HELP and TYPE and the same names in both modes', async () => {
    const s = await scrape();
    const names = s.families.map((f) => f.name).filter((n) => !n.startsWith('tracker_process_'));
    expect(names.sort()).toEqual([
      'tracker_commission_amount_cents_total',
      'tracker_commission_reversed_cents_total',
      'tracker_http_request_duration_seconds',
      'tracker_job_duration_seconds',
      'tracker_jobs_total',
      'tracker_metrics_scrape_errors_total',
      'tracker_notification_outbox_lag_seconds',
      'tracker_notification_outbox_pending',
      'tracker_queue_jobs',
      'tracker_rate_limit_rejections_total',
      'tracker_refund_amount_cents_total',
      'tracker_refunds_total',
      'tracker_sale_amount_cents_total',
      'tracker_sales_total',
      'tracker_webhook_inbox_oldest_pending_age_seconds',
      'tracker_webhook_inbox_rows',
      'tracker_webhooks_received_total',
      'tracker_webhooks_rejected_total',
    ]);
    for (const fam of s.families) expect(fam.help, fam.name).not.toBe('');
    // The Grafana dashboard queries only series the service exports.
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const used = new Set([...dashboard.matchAll(/tracker_\w+/g)].map(([n]) => n.replace(/_(bucket|count|sum)$/, '')));
    for (const n of used) expect(names, n).toContain(n);
    expect(s.value('tracker_metrics_scrape_errors_total')).toBe(0);
  });
});
