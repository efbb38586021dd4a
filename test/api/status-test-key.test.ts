/**
 * GET /api/v1/cli/status with a test key counts the program's test traffic (test sales and test
 * leads), so an integration can be checked before it goes live; a live key's answer still counts
 * the live rows and nothing of the test traffic. Both modes.
 */
import { beforeAll, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
const status = async (key: string) => {
  const r = await h.request('/api/v1/cli/status', { headers: bearer(key) });
  expect(r.status).toBe(200);
  return r.body;
};
const sale = async (key: string, body: Record<string, unknown>) => {
  const r = await h.request('/api/v1/track/sale', {
    body: { amount_cents: 4900, currency: 'USD', ...body },
    headers: bearer(key),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

beforeAll(async () => {
  f = await createProgramFixture(h);
  // Live traffic: one click, its lead, one attributed sale.
  await clickAndLead(h, f, 'live_1');
  await sale(f.liveKey, { transaction_id: 'pi_live_1', customer_key: 'live_1' });
});

test('a test key sees no activity before any test traffic, whatever the live traffic', async () => {
  const body = await status(f.testKey);
  expect(body.key_mode).toBe('test');
  expect(body.activity).toEqual({
    clicks: { count: 0, last_at: null },
    leads: { count: 0, last_at: null },
    sales: { count: 0, last_at: null },
    refunds: { count: 0, last_at: null },
  });
});

test("test sales and test leads are a test key's activity; the live key's counts do not move", async () => {
  const liveBefore = await status(f.liveKey);
  expect(liveBefore.activity.sales.count).toBe(1);
  expect(liveBefore.activity.leads.count).toBe(1);

  expect((await sale(f.testKey, { transaction_id: 'test_1' })).data.test_mode).toBe(true);
  await sale(f.testKey, { transaction_id: 'test_1' }); // a repeat is the same test event
  await sale(f.liveKey, { transaction_id: 'test_2', livemode: false }); // test traffic on a live key
  const lead = await h.request('/api/v1/track/lead', {
    body: { customer_key: 'test_user' },
    headers: bearer(f.testKey),
  });
  expect(lead.body.data.test_mode).toBe(true);
  const refund = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'test_1' },
    headers: bearer(f.testKey),
  });
  expect(refund.body.status).toBe('no_commission');

  const body = await status(f.testKey);
  expect(body.activity.sales.count).toBe(2);
  expect(body.activity.leads.count).toBe(1);
  expect(body.activity.clicks).toEqual({ count: 0, last_at: null });
  expect(body.activity.refunds).toEqual({ count: 0, last_at: null });
  expect(body.activity.sales.last_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(body.activity.leads.last_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(body.program).toEqual(liveBefore.program);

  const liveAfter = await status(f.liveKey);
  expect(liveAfter.key_mode).toBe('live');
  expect(liveAfter.activity).toEqual(liveBefore.activity);
});
