import { beforeAll, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createProgramFixture(h);
});

test('click → lead → sale → partial refund → full refund', async () => {
  await clickAndLead(h, f, 'cust-1');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'tx-1', amount_cents: 10000, customer_key: 'cust-1' },
    headers: bearer(f.liveKey),
  });
  expect(sale.status).toBe(200);
  expect(sale.body).toMatchObject({ success: true, sale_id: expect.any(Number), commission_id: expect.any(Number) });
  const r1 = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'tx-1', refund_amount_cents: 2500, refund_id: 'r1' },
    headers: bearer(f.liveKey),
  });
  expect(r1.body).toEqual({
    success: true,
    status: 'refunded',
    deductionAmount: 250,
    commission_id: sale.body.commission_id,
  });
  const r2 = await h.request('/api/v1/track/refund', { body: { transaction_id: 'tx-1' }, headers: bearer(f.liveKey) });
  expect(r2.body).toEqual({
    success: true,
    status: 'reversed',
    deductionAmount: 750,
    commission_id: sale.body.commission_id,
  });
  const status = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
  expect(status.status).toBe(200);
  expect(status.body.activity.sales.count).toBe(1);
});
