import { beforeAll, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'alice');
});

const sale = (transaction_id: string, amount = 10_000) =>
  h.request('/api/v1/track/sale', {
    body: { transaction_id, amount_cents: amount, customer_key: 'alice' },
    headers: bearer(f.liveKey),
  });
const refund = (body: Record<string, unknown>) =>
  h.request('/api/v1/track/refund', { body, headers: bearer(f.liveKey) });

test('20 identical sale calls at once → exactly one sale; the others 409 with the same sale_id', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, () => sale('same-tx')));
  const ok = results.filter((r) => r.status === 200);
  const conflicts = results.filter((r) => r.status === 409);
  expect(ok).toHaveLength(1);
  expect(conflicts).toHaveLength(19);
  for (const c of conflicts) expect(c.body.error.details.sale_id).toBe(ok[0]!.body.sale_id);
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
  expect(sales.filter((s: any) => s.transaction_id === 'same-tx')).toHaveLength(1);
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  expect(commissions.filter((c: any) => c.sale === ok[0]!.body.sale_id)).toHaveLength(1);
});

test('10 concurrent partial refunds with distinct refund ids → exact cumulative result', async () => {
  const s = await sale('tx-distinct', 10_000);
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      refund({ transaction_id: 'tx-distinct', refund_amount_cents: 1_000, refund_id: `r-${i}` }),
    ),
  );
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(results.reduce((sum, r) => sum + r.body.deductionAmount, 0)).toBe(1_000);
  expect(results.filter((r) => r.body.status === 'reversed')).toHaveLength(1);
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  expect(commissions.find((c: any) => c.id === s.body.commission_id)).toMatchObject({
    status: 'reversed',
    reversed_cents: 1_000,
  });
});

test('10 concurrent calls with one refund_id → applied once', async () => {
  const s = await sale('tx-one-id', 10_000);
  const results = await Promise.all(
    Array.from({ length: 10 }, () =>
      refund({ transaction_id: 'tx-one-id', refund_amount_cents: 2_500, refund_id: 'only-once' }),
    ),
  );
  expect(results.filter((r) => r.body.status === 'refunded')).toHaveLength(1);
  expect(results.filter((r) => r.body.status === 'skipped')).toHaveLength(9);
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  expect(commissions.find((c: any) => c.id === s.body.commission_id).reversed_cents).toBe(250);
});

test('10 concurrent refunds of one amount without a refund_id on a credited commission → one applied (the rest are retries); the balance and its ledger move once', async () => {
  const s = await sale('tx-same-amount', 10_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${s.body.commission_id}/approve`, {});
  const account = () => h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`);
  const usd = async () => (await account()).balances.find((b: any) => b.currency === 'USD')?.balance_cents ?? 0;
  const before = await usd();
  const results = await Promise.all(
    Array.from({ length: 10 }, () => refund({ transaction_id: 'tx-same-amount', refund_amount_cents: 3_000 })),
  );
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(results.filter((r) => r.body.status === 'refunded')).toHaveLength(1);
  expect(results.filter((r) => r.body.status === 'skipped')).toHaveLength(9);
  expect(await usd()).toBe(before - 300);
  const deductions = (await account()).ledger.filter(
    (e: any) => e.kind === 'refund_deduction' && e.commission_id === s.body.commission_id,
  );
  expect(deductions.map((e: any) => e.delta_cents)).toEqual([-300]);
});

test('concurrent leads for the same customer create one customer', async () => {
  const click = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://x.example/?aff=${f.partnerCode}` },
  });
  const results = await Promise.all(
    Array.from({ length: 8 }, () =>
      h.request('/api/v1/track/lead', {
        body: { customer_key: 'racer', click_id: click.body.click_id },
        headers: bearer(f.liveKey),
      }),
    ),
  );
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(new Set(results.map((r) => r.body.customer_id)).size).toBe(1);
});
