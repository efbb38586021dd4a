import { describe, expect, test } from 'vitest';
import { DAY_MS } from '../../src/core/deps.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';
import { rewardSales } from '../helpers/reward-sales.ts';

/**
 * The first-sale reward through the API, in both modes: "flat $50 on a customer's first payment,
 * then 30% of renewals for 12 months", the rule recorded on each commission, refunds reversing each
 * commission in proportion, a group's own first-sale reward, and the what-if preview replaying it.
 */
const h = useHarness();
const { saleOf, setRules } = rewardSales(h);
const FIFTY_THEN_THIRTY = {
  first_sale: { type: 'flat', amounts: { USD: 5_000 } },
  sale: { type: 'percent', bps: 3_000 },
  recurring: { policy: 'months', months: 12 },
};

async function commission(f: Fixture, id: number) {
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  return commissions.find((c: { id: number }) => c.id === id);
}
const refund = (f: Fixture, body: Record<string, unknown>) =>
  h.request('/api/v1/track/refund', { body, headers: bearer(f.liveKey) });

describe('first-sale reward', () => {
  test('$50 on the first payment, 30% of renewals within 12 months, nothing after', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1_000, recurring_policy: 'lifetime' });
    await clickAndLead(h, f, 'fs-buyer');
    await setRules(f, FIFTY_THEN_THIRTY);
    const sub = { subscription_id: 'fs-sub', sale_type: 'subscription', amount_cents: 20_000 };
    const start = h.clock.now;
    try {
      const first = await saleOf(f, 'fs-buyer', sub);
      expect(await commission(f, first.commission_id!)).toMatchObject({
        amount_cents: 5_000,
        rate_bps: 0,
        reward: { rule: 'first_sale', type: 'flat', flat_cents: 5_000, source: 'program' },
      });
      h.clock.advanceDays(31);
      const month2 = await saleOf(f, 'fs-buyer', { ...sub, is_recurring: true });
      expect(await commission(f, month2.commission_id!)).toMatchObject({
        amount_cents: 6_000,
        rate_bps: 3_000,
        reward: { rule: 'sale', type: 'percent', bps: 3_000 },
      });
      // Another purchase by the same customer is not their first payment either.
      const addOn = await saleOf(f, 'fs-buyer', { amount_cents: 10_000 });
      expect(await commission(f, addOn.commission_id!)).toMatchObject({
        amount_cents: 3_000,
        reward: { rule: 'sale' },
      });
      h.clock.now = new Date(start.getTime() + 370 * DAY_MS);
      const month13 = await saleOf(f, 'fs-buyer', { ...sub, is_recurring: true });
      expect(month13.commission_id).toBeNull();
      expect(month13.sale_id).toEqual(expect.any(Number));
    } finally {
      h.clock.now = start;
    }
  });

  test('refunds reverse the first-sale and the renewal commission each in proportion', async () => {
    const f = await createProgramFixture(h, { recurring_policy: 'lifetime' });
    await clickAndLead(h, f, 'fs-refund');
    await setRules(f, FIFTY_THEN_THIRTY);
    const sub = { subscription_id: 'fs-refund-sub', amount_cents: 20_000 };
    const first = await saleOf(f, 'fs-refund', sub);
    const renewal = await saleOf(f, 'fs-refund', { ...sub, is_recurring: true });

    const half = await refund(f, { transaction_id: first.transactionId, refund_amount_cents: 10_000, refund_id: 'a' });
    expect(half.body).toMatchObject({ status: 'refunded', deductionAmount: 2_500 });
    const quarter = await refund(f, { transaction_id: renewal.transactionId, refund_amount_cents: 5_000 });
    expect(quarter.body).toMatchObject({ status: 'refunded', deductionAmount: 1_500 });
    const rest = await refund(f, { transaction_id: first.transactionId });
    expect(rest.body).toMatchObject({ status: 'reversed', deductionAmount: 2_500 });

    expect(await commission(f, first.commission_id!)).toMatchObject({
      status: 'reversed',
      amount_cents: 5_000,
      reversed_cents: 5_000,
      reward: { rule: 'first_sale' },
    });
    expect(await commission(f, renewal.commission_id!)).toMatchObject({
      status: 'refunded',
      amount_cents: 6_000,
      reversed_cents: 1_500,
    });
  });

  test('a group’s first-sale reward replaces the program’s; a currency it does not name falls through', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1_000 });
    await clickAndLead(h, f, 'fs-usd');
    await clickAndLead(h, f, 'fs-eur');
    await setRules(f, { first_sale: { type: 'flat', amounts: { USD: 9_000 } } });
    const { group } = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'Launch partners',
      reward_rules: { first_sale: { type: 'flat', amounts: { USD: 4_000 } }, sale: { type: 'percent', bps: 2_000 } },
    });
    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: group.id });
    const usd = await saleOf(f, 'fs-usd');
    const eur = await saleOf(f, 'fs-eur', { currency: 'EUR' });
    expect(await commission(f, usd.commission_id!)).toMatchObject({
      amount_cents: 4_000,
      reward: { rule: 'first_sale', source: 'group', group_id: group.id },
    });
    expect(await commission(f, eur.commission_id!)).toMatchObject({ amount_cents: 2_000, reward: { rule: 'sale' } });
  });

  test('rules without a first-sale reward keep their meaning; an invalid one is refused', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1_000 });
    await clickAndLead(h, f, 'fs-plain');
    await setRules(f, { sale: { type: 'percent', bps: 2_500 } });
    const plain = await saleOf(f, 'fs-plain');
    expect(await commission(f, plain.commission_id!)).toMatchObject({ amount_cents: 2_500, reward: { rule: 'sale' } });
    const r = await h.request(`/api/v1/admin/programs/${f.programId}`, {
      method: 'PATCH',
      body: { reward_rules: { first_sale: { type: 'percent', bps: 20_000 } } },
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toMatch(/first_sale/);
  });

  test('the what-if preview replays the first-sale reward on recorded sales', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1_000, recurring_policy: 'lifetime' });
    await clickAndLead(h, f, 'fs-pv-a');
    await clickAndLead(h, f, 'fs-pv-b');
    await saleOf(f, 'fs-pv-a', { subscription_id: 'fs-pv-sub', amount_cents: 20_000 });
    await saleOf(f, 'fs-pv-a', { subscription_id: 'fs-pv-sub', is_recurring: true, amount_cents: 20_000 });
    await saleOf(f, 'fs-pv-b', { amount_cents: 10_000 });
    await saleOf(f, 'fs-pv-b', { amount_cents: 10_000 });
    const preview = await h.admin('POST', `/programs/${f.programId}/rules/preview`, {
      reward_rules: FIFTY_THEN_THIRTY,
      from: new Date(h.clock.now.getTime() - DAY_MS).toISOString(),
      to: new Date(h.clock.now.getTime() + DAY_MS).toISOString(),
    });
    // Recorded at 10%: 2 000 + 2 000 + 1 000 + 1 000. Proposed: 5 000 + 6 000 (a), 5 000 + 3 000 (b).
    expect(preview.totals).toEqual([{ currency: 'USD', sales: 4, current_cents: 6_000, proposed_cents: 19_000 }]);
  });
});
