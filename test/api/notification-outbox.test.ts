import { expect, test } from 'vitest';
import { bearer, clickAndLead, createHarness, createProgramFixture, useHarness } from '../helpers/harness.ts';

// The sender fails more times than a notify job has attempts: the job fails for good, and only
// the outbox sweeper (under a fresh job id) can still deliver the notification.
const ATTEMPTS = 2;
let failuresLeft = 0;
const delivered: number[] = [];
const h = useHarness(
  { NOTIFY_ATTEMPTS: String(ATTEMPTS), NOTIFY_RETRY_BASE_MS: '10', SWEEP_INTERVAL_MS: '100' },
  {
    notificationSender: {
      async send(n) {
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('notification service down');
        }
        delivered.push(n.id);
      },
    },
  },
);

async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a notification whose sender stays down longer than the job attempts is delivered once it recovers (fresh job id per sweep)', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'outbox');
  const sold = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'ob-1', amount_cents: 10_000, customer_key: 'outbox' },
    headers: bearer(f.liveKey),
  });
  failuresLeft = ATTEMPTS * 2 + 1; // the first job and the first sweep's job both run out
  const r = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'ob-1', refund_amount_cents: 1_000 },
    headers: bearer(f.liveKey),
  });
  expect(r.body).toMatchObject({ success: true, status: 'refunded', commission_id: sold.body.commission_id });
  const list = async () =>
    (await h.admin('GET', `/programs/${f.programId}/notifications?limit=50`)).notifications as Array<
      Record<string, any>
    >;

  // Let the first job use its attempts, then age the row past the retry horizon (the injected clock).
  await poll(
    async () => failuresLeft,
    (n) => n <= ATTEMPTS + 1,
    'the first job to fail',
  );
  h.clock.advanceDays(1);
  await poll(
    async () => (await list())[0],
    (n) => n?.sweeps >= 1,
    'the first sweep',
  );
  await poll(
    async () => failuresLeft,
    (n) => n <= 1,
    'the swept job to fail',
  );
  h.clock.advanceDays(1);
  const row = (await poll(list, (rows) => rows[0]?.delivered_at !== null, 'delivery'))[0]!;
  expect(row).toMatchObject({
    kind: 'partner_commission_refunded',
    commission_id: sold.body.commission_id,
    sweeps: expect.any(Number),
  });
  expect(row.sweeps).toBeGreaterThanOrEqual(2);
  expect(delivered.filter((id) => id === row.id)).toHaveLength(1);
});

test('job ids never collide across a database reset under the same queue prefix', async () => {
  const prefix = `reset${Date.now().toString(36)}`;
  const deliveredIds: number[][] = [];
  for (let round = 0; round < 2; round++) {
    // A fresh database each round, the same queue prefix: notification ids restart at 1.
    const r = await createHarness({ QUEUE_PREFIX: prefix });
    try {
      const f = await createProgramFixture(r, { commission_rate_bps: 1000 });
      await clickAndLead(r, f, 'resetter');
      await r.request('/api/v1/track/sale', {
        body: { transaction_id: 'rs-1', amount_cents: 10_000, customer_key: 'resetter' },
        headers: bearer(f.liveKey),
      });
      await r.request('/api/v1/track/refund', {
        body: { transaction_id: 'rs-1', refund_amount_cents: 1_000 },
        headers: bearer(f.liveKey),
      });
      await poll(
        async () => r.sent.length,
        (n) => n >= 1,
        `round ${round} delivery`,
        10_000,
      );
      deliveredIds.push(r.sent.map((n) => n.id));
    } finally {
      await r.close();
    }
  }
  expect(deliveredIds).toEqual([[1], [1]]);
}, 180_000); // two whole services, one after the other

test('a service stopped right after an answer first finishes the deliveries that answer started', async () => {
  // Notifications go out after the job answered (nothing awaits them); a slow sender keeps one
  // running while the service stops. Before, the queue and the database closed under it (CI saw
  // "Connection is closed" and a shutdown that never returned).
  const slow: number[] = [];
  const r = await createHarness(
    {},
    {
      notificationSender: {
        async send(n) {
          await new Promise((res) => setTimeout(res, 300));
          slow.push(n.id);
        },
      },
    },
  );
  let written: number[];
  try {
    const f = await createProgramFixture(r, { commission_rate_bps: 1000 });
    await clickAndLead(r, f, 'stopper');
    await r.request('/api/v1/track/sale', {
      body: { transaction_id: 'st-1', amount_cents: 10_000, customer_key: 'stopper' },
      headers: bearer(f.liveKey),
    });
    const refunded = await r.request('/api/v1/track/refund', {
      body: { transaction_id: 'st-1', refund_amount_cents: 1_000 },
      headers: bearer(f.liveKey),
    });
    expect(refunded.body).toMatchObject({ success: true, status: 'refunded' });
    const rows = (await r.admin('GET', `/programs/${f.programId}/notifications?limit=50`)).notifications as Array<{
      id: number;
    }>;
    written = rows.map((n) => n.id);
    expect(written.length).toBeGreaterThanOrEqual(1);
  } finally {
    await r.close();
  }
  expect([...slow].sort((a, b) => a - b)).toEqual([...written].sort((a, b) => a - b));
}, 60_000);
