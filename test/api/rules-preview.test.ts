import { describe, expect, test } from 'vitest';
import { DAY_MS } from '../../src/core/deps.ts';
import { clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';
import { rewardSales } from '../helpers/reward-sales.ts';

/**
 * The what-if preview of reward rules through the API, in both modes: recorded sales replayed
 * under the rules they were recorded with and under changed rules, per partner and currency.
 */
const h = useHarness();
const { saleOf, setRules, otherPartner } = rewardSales(h);

describe('what-if preview', () => {
  const preview = (f: Fixture, body: Record<string, unknown>) =>
    h.admin('POST', `/programs/${f.programId}/rules/preview`, body);

  test('recorded sales replayed under their own rules and under changed ones (tiers, groups, renewals)', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000, recurring_policy: 'lifetime' });
    await clickAndLead(h, f, 'pv-a');
    const b = await otherPartner(f, 'pv-b');
    await setRules(f, {
      sale: { type: 'percent', bps: 500 },
      tiers: {
        metric: 'sales',
        period: 'last_30_days',
        steps: [{ from: 3, reward: { type: 'flat', amounts: { USD: 900 } } }],
      },
      recurring: { policy: 'one_time', months: null },
    });
    const { group } = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'Pv',
      reward_rules: { sale: { type: 'percent', bps: 2000 } },
    });
    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: group.id });
    for (const [i, key] of ['pv-a', 'pv-b', 'pv-b', 'pv-b', 'pv-b', 'pv-a'].entries())
      await saleOf(f, key, { amount_cents: 3_000 + i * 1_000 });
    await saleOf(f, 'pv-b', { subscription_id: 'pv-sub', amount_cents: 4_000 });
    await saleOf(f, 'pv-b', { subscription_id: 'pv-sub', is_recurring: true, amount_cents: 4_000 });
    const from = new Date(h.clock.now.getTime() - DAY_MS).toISOString();
    const to = new Date(h.clock.now.getTime() + DAY_MS).toISOString();
    const line = (partnerId: number, sales: number, current: number, proposed: number) => ({
      partner_id: partnerId,
      currency: 'USD',
      sales,
      current_cents: current,
      proposed_cents: proposed,
    });
    // Recorded. A (group, 20%): 3 000 → 600, 8 000 → 1 600; 2 200. B (program): 5% below 3 sales,
    // then flat 900: 4 000 → 200, 5 000 → 250, 6 000 → 900, 7 000 → 900, subscription 4 000 → 900,
    // its renewal under one_time → 0; 3 150.
    const same = await preview(f, { from, to });
    expect(same.sales).toBe(8);
    expect(same.partners).toEqual([line(f.partnerId, 2, 2_200, 2_200), line(b.id, 6, 3_150, 3_150)]);
    expect(same.totals).toEqual([{ currency: 'USD', sales: 8, current_cents: 5_350, proposed_cents: 5_350 }]);

    // Changed. A's group: flat 7.00 → 700 + 700 = 1 400. B: 11.25% (half-up) until the 30-day
    // revenue, this sale included, reaches 15 000, then flat 50.00 capped at the sale; renewals for
    // life. 4 000 (4 000) → 450; 5 000 (9 000) → 562.5 → 563; 6 000 (15 000) → 5 000; 7 000
    // (22 000) → 5 000; subscription 4 000 (26 000) → 4 000; renewal 4 000 (30 000) → 4 000; 19 013.
    const changed = await preview(f, {
      from,
      to,
      reward_rules: {
        sale: { type: 'percent', bps: 1_125 },
        tiers: {
          metric: 'revenue',
          period: 'last_30_days',
          steps: [{ from: 15_000, reward: { type: 'flat', amounts: { USD: 5_000 } } }],
        },
        recurring: { policy: 'lifetime', months: null },
      },
      group_rules: { [group.id]: { sale: { type: 'flat', amounts: { USD: 700 } } } },
    });
    expect(changed.partners).toEqual([line(f.partnerId, 2, 2_200, 1_400), line(b.id, 6, 3_150, 19_013)]);
    expect(changed.totals).toEqual([{ currency: 'USD', sales: 8, current_cents: 5_350, proposed_cents: 20_413 }]);
  });

  test('proposed rules: per partner and in total, current against proposed; nothing is written', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'pw-a');
    const b = await otherPartner(f, 'pw-b');
    await saleOf(f, 'pw-a', { amount_cents: 10_000 });
    await saleOf(f, 'pw-b', { amount_cents: 20_000 });
    await saleOf(f, 'pw-b', { amount_cents: 30_000, currency: 'EUR' });
    const before = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
    const r = await preview(f, { reward_rules: { sale: { type: 'flat', amounts: { USD: 1_234 } } } });
    expect(r.totals).toEqual([
      { currency: 'EUR', sales: 1, current_cents: 3_000, proposed_cents: 3_000 },
      { currency: 'USD', sales: 2, current_cents: 3_000, proposed_cents: 2_468 },
    ]);
    expect(r.partners).toContainEqual({
      partner_id: b.id,
      currency: 'USD',
      sales: 1,
      current_cents: 2_000,
      proposed_cents: 1_234,
    });
    expect(await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).toEqual(before);
    expect((await h.admin('GET', `/programs/${f.programId}`)).program.reward_rules).toBeNull();
  });

  test('bad windows and unknown groups are refused', async () => {
    const f = await createProgramFixture(h);
    await expect(preview(f, { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).rejects.toThrow(/400/);
    await expect(preview(f, { from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).rejects.toThrow(/366/);
    await expect(preview(f, { group_rules: { 999999: null } })).rejects.toThrow(/404/);
  });
});
