/**
 * Races on one key, through the real processes: the same webhook delivered 100 times at once,
 * 50 concurrent refunds of one sale (distinct ids, then one id), 50 concurrent sales with one
 * transaction id. The database keys and the sale's row lock decide: exactly one effect, or an
 * exact cumulative total.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { expectedCommission, signedStripeCheckout } from '../helpers/load-fixture.ts';
import {
  bearer,
  createFaultEnv,
  ledgerViolations,
  pendingWebhooks,
  send,
  waitFor,
  type FaultEnv,
} from './fault-env.ts';

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['http', 'worker'], env: { WORKER_CONCURRENCY: '16', DB_POOL_MAX: '20' } });
});
afterAll(async () => {
  await env?.close();
});

const times = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

async function commissionOf(transactionId: string) {
  const { rows } = await env.db.pool.query(
    `select s.id as sale_id, s.amount_cents, s.refunded_cents, c.id as commission_id, c.amount_cents as commission_cents, c.reversed_cents, c.status,
            (select count(*)::int from refund r where r.sale_id = s.id) as refunds
       from sale s join commission c on c.sale_id = s.id where s.transaction_id = $1`,
    [transactionId],
  );
  return rows.map((r) => ({
    ...r,
    amount_cents: Number(r.amount_cents),
    refunded_cents: Number(r.refunded_cents),
    commission_cents: Number(r.commission_cents),
    reversed_cents: Number(r.reversed_cents),
  }));
}

test('the same webhook delivered 100 times at once → one inbox row, one sale, one commission', async () => {
  const f = env.fixture;
  const d = signedStripeCheckout(f, {
    eventId: 'evt_dup100',
    paymentIntent: 'pi_dup100',
    amountCents: 12_345,
    customerKey: f.customerKey(1),
  });
  const replies = await times(100, () =>
    send(env.http.url, `/api/v1/webhooks/stripe/${f.programId}`, { body: d.body, headers: d.headers }),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(100).fill(200));
  expect(replies.filter((r) => r.body.duplicate === false)).toHaveLength(1);
  expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
  await waitFor('the event to be processed', 30_000, async () => (await pendingWebhooks(env.db)) === 0);
  const {
    rows: [ev],
  } = await env.db.pool.query(`select count(*)::int as n from webhook_event where dedupe_key = 'evt_dup100'`);
  expect(ev.n).toBe(1);
  const [c] = await commissionOf('pi_dup100');
  expect(await commissionOf('pi_dup100')).toHaveLength(1);
  expect(c.commission_cents).toBe(expectedCommission(12_345, 1_000));
});

test('50 concurrent sales with one transaction id → one sale; 49 × 409 naming it', async () => {
  const f = env.fixture;
  const replies = await times(50, () =>
    send(env.http.url, '/api/v1/track/sale', {
      body: { transaction_id: 'same-tx', amount_cents: 10_000, customer_key: f.customerKey(2) },
      headers: bearer(f.liveKey),
    }),
  );
  const ok = replies.filter((r) => r.status === 200);
  expect(ok).toHaveLength(1);
  const conflicts = replies.filter((r) => r.status === 409);
  expect(conflicts).toHaveLength(49);
  for (const r of conflicts)
    expect(r.body.error).toMatchObject({
      code: 'duplicate_transaction',
      name: 'ConflictError',
      details: { sale_id: ok[0]!.body.sale_id },
    });
  expect(await commissionOf('same-tx')).toHaveLength(1);
});

test('50 concurrent partial refunds with distinct ids on one sale → exact cumulative total', async () => {
  const f = env.fixture;
  const sale = await send(env.http.url, '/api/v1/track/sale', {
    body: { transaction_id: 'refund-race', amount_cents: 10_000, customer_key: f.customerKey(3) },
    headers: bearer(f.liveKey),
  });
  expect(sale.status).toBe(200);
  // 50 × 1.00 of a 100.00 sale: half refunded, so exactly half the commission reversed.
  const replies = await times(50, (i) =>
    send(env.http.url, '/api/v1/track/refund', {
      body: { transaction_id: 'refund-race', refund_amount_cents: 100, refund_id: `rr-${i}` },
      headers: bearer(f.liveKey),
    }),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(replies.every((r) => r.body.status === 'refunded')).toBe(true);
  const [c] = await commissionOf('refund-race');
  expect(c.refunded_cents).toBe(5_000);
  expect(c.reversed_cents).toBe(c.commission_cents / 2);
  expect(c.refunds).toBe(50);
  expect(replies.reduce((sum, r) => sum + r.body.deductionAmount, 0)).toBe(c.reversed_cents);
  expect(c.status).toBe('refunded');
});

test('50 concurrent refunds over the sale amount → capped: fully reversed once, the rest skipped', async () => {
  const f = env.fixture;
  await send(env.http.url, '/api/v1/track/sale', {
    body: { transaction_id: 'refund-cap', amount_cents: 10_000, customer_key: f.customerKey(4) },
    headers: bearer(f.liveKey),
  });
  // 50 × 3.00 = 150.00 asked on a 100.00 sale.
  const replies = await times(50, (i) =>
    send(env.http.url, '/api/v1/track/refund', {
      body: { transaction_id: 'refund-cap', refund_amount_cents: 300, refund_id: `rc-${i}` },
      headers: bearer(f.liveKey),
    }),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
  const [c] = await commissionOf('refund-cap');
  expect(c.refunded_cents).toBe(10_000);
  expect(c.reversed_cents).toBe(c.commission_cents);
  expect(c.status).toBe('reversed');
  expect(replies.filter((r) => r.body.status === 'reversed')).toHaveLength(1);
  expect(replies.filter((r) => r.body.status === 'skipped')).toHaveLength(50 - c.refunds);
  expect(replies.reduce((sum, r) => sum + (r.body.deductionAmount ?? 0), 0)).toBe(c.commission_cents);
});

test('50 concurrent refunds with one refund id → applied once, 49 skipped', async () => {
  const f = env.fixture;
  await send(env.http.url, '/api/v1/track/sale', {
    body: { transaction_id: 'refund-once', amount_cents: 10_000, customer_key: f.customerKey(5) },
    headers: bearer(f.liveKey),
  });
  const replies = await times(50, () =>
    send(env.http.url, '/api/v1/track/refund', {
      body: { transaction_id: 'refund-once', refund_amount_cents: 2_500, refund_id: 'the-one' },
      headers: bearer(f.liveKey),
    }),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(replies.filter((r) => r.body.status === 'refunded')).toHaveLength(1);
  expect(replies.filter((r) => r.body.status === 'skipped')).toHaveLength(49);
  const [c] = await commissionOf('refund-once');
  expect(c.refunded_cents).toBe(2_500);
  expect(c.refunds).toBe(1);
  expect(c.reversed_cents).toBe(Math.floor((2 * c.commission_cents * 2_500 + 10_000) / 20_000));
  expect(await ledgerViolations(env.db)).toEqual({});
});
