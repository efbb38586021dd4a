import { expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture } from '../helpers/harness.ts';

const h = useHarness();

const sale = (key: string, body: Record<string, unknown>) =>
  h.request('/api/v1/track/sale', {
    body: { amount_cents: 1000, sale_type: 'subscription', ...body },
    headers: bearer(key),
  });

test.each([
  ['lifetime: every renewal earns, with no click-window check', { recurring_policy: 'lifetime' }, [true, true, true]],
  ['one_time: only the first sale earns', { recurring_policy: 'one_time' }, [true, false, false]],
  [
    'months 2: renewals within two months of the first sale earn',
    { recurring_policy: 'months', recurring_months: 2 },
    [true, true, false],
  ],
])('%s', async (_label, policy, earns) => {
  const f = await createProgramFixture(h, { attribution_window_days: 30, ...policy });
  await clickAndLead(h, f, 'subscriber');
  const sub = `sub-${f.programId}`;
  const start = h.clock.now;
  try {
    const first = await sale(f.liveKey, {
      transaction_id: `${sub}-1`,
      customer_key: 'subscriber',
      subscription_id: sub,
      subscription_interval: 'monthly',
    });
    h.clock.advanceDays(40); // past the 30-day click window: renewals follow the subscription instead
    const second = await sale(f.liveKey, {
      transaction_id: `${sub}-2`,
      is_recurring: true,
      subscription_id: sub,
      subscription_interval: 'monthly',
    });
    h.clock.advanceDays(40);
    const third = await sale(f.liveKey, { transaction_id: `${sub}-3`, is_recurring: true, subscription_id: sub });
    const results = [first, second, third];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => r.body.commission_id !== null)).toEqual(earns);
    expect(results.every((r) => typeof r.body.sale_id === 'number')).toBe(true);
  } finally {
    h.clock.now = start;
  }
});

test('a renewal of an unknown subscription falls back to normal attribution (and its window)', async () => {
  const f = await createProgramFixture(h);
  const r = await sale(f.liveKey, {
    transaction_id: 'orphan-renewal',
    is_recurring: true,
    subscription_id: 'never-seen',
  });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('no_attribution');
});

test('the hold period: pending commissions older than it are approved (credited) by the sweep', async () => {
  const f = await createProgramFixture(h, { hold_period_days: 14 });
  await clickAndLead(h, f, 'holder');
  const s = await sale(f.liveKey, { transaction_id: 'held', customer_key: 'holder' });
  const { approveDueCommissions } = await import('../../src/core/rewards/approve-commission.ts');
  expect((await approveDueCommissions(h.ctx.deps())).approved).toBe(0);
  const start = h.clock.now;
  h.clock.advanceDays(15);
  try {
    expect((await approveDueCommissions(h.ctx.deps())).approved).toBeGreaterThanOrEqual(1);
  } finally {
    h.clock.now = start;
  }
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
  expect(commissions.find((c: any) => c.id === s.body.commission_id)).toMatchObject({
    status: 'approved',
    credited_at: expect.any(String),
  });
  const acct = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`);
  expect(acct.balances).toEqual([{ currency: 'USD', balance_cents: 100 }]);
});
