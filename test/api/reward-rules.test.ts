import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DAY_MS } from '../../src/core/deps.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';
import { rewardSales } from '../helpers/reward-sales.ts';

/**
 * Reward rules through the API, in both modes: flat and percentage rewards, tiers on a partner's
 * results, partner groups with their own rules and recurring limits, and history that a rule
 * change never rewrites. The pure evaluation's table and bounds: test/core/reward-rules.test.ts; the
 * what-if preview: rules-preview.test.ts.
 */
const h = useHarness();
const { saleOf, setRules, otherPartner } = rewardSales(h);
async function commission(f: Fixture, id: number) {
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`);
  return commissions.find((c: { id: number }) => c.id === id);
}

describe('program rules', () => {
  test('a flat reward per currency; a currency it does not name earns the program rate', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'flat-buyer');
    await setRules(f, { sale: { type: 'flat', amounts: { USD: 2_500 } } });
    const usd = await saleOf(f, 'flat-buyer');
    const eur = await saleOf(f, 'flat-buyer', { currency: 'EUR' });
    const small = await saleOf(f, 'flat-buyer', { amount_cents: 1_000 });
    expect(await commission(f, usd.commission_id!)).toMatchObject({
      amount_cents: 2_500,
      rate_bps: 0,
      reward: { rule: 'sale', type: 'flat', flat_cents: 2_500, source: 'program' },
    });
    expect(await commission(f, eur.commission_id!)).toMatchObject({ amount_cents: 1_000, reward: { rule: 'base' } });
    // Never more than the sale.
    expect((await commission(f, small.commission_id!)).amount_cents).toBe(1_000);
  });

  test('tiers on the partner’s sales in the calendar month: the step applies from its boundary and resets next month', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'tier-buyer');
    await setRules(f, {
      tiers: {
        metric: 'sales',
        period: 'calendar_month',
        steps: [{ from: 3, reward: { type: 'percent', bps: 2000 } }],
      },
    });
    const start = h.clock.now;
    // The first day of next month, so the three sales share one month.
    const monthStart = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1, 12);
    h.clock.now = new Date(monthStart);
    try {
      const amounts = [];
      for (let i = 0; i < 4; i++)
        amounts.push((await commission(f, (await saleOf(f, 'tier-buyer')).commission_id!)).amount_cents);
      expect(amounts).toEqual([1_000, 1_000, 2_000, 2_000]);
      const third = await commission(f, (await saleOf(f, 'tier-buyer')).commission_id!);
      expect(third.reward).toMatchObject({ rule: 'tier', tier: { metric: 'sales', value: 5, from: 3 } });
      h.clock.now = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 2, 1, 12));
      expect((await commission(f, (await saleOf(f, 'tier-buyer')).commission_id!)).amount_cents).toBe(1_000);
    } finally {
      h.clock.now = start;
    }
  });

  test('tiers on revenue in the last 30 days, in the sale’s currency', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'rev-buyer');
    await setRules(f, {
      tiers: {
        metric: 'revenue',
        period: 'last_30_days',
        steps: [{ from: 25_000, reward: { type: 'percent', bps: 3000 } }],
      },
    });
    const a = await saleOf(f, 'rev-buyer', { amount_cents: 10_000 }); // 10 000
    const eur = await saleOf(f, 'rev-buyer', { amount_cents: 50_000, currency: 'EUR' }); // EUR: 50 000
    const b = await saleOf(f, 'rev-buyer', { amount_cents: 10_000 }); // USD 20 000
    const c = await saleOf(f, 'rev-buyer', { amount_cents: 10_000 }); // USD 30 000
    expect((await commission(f, a.commission_id!)).amount_cents).toBe(1_000);
    expect((await commission(f, eur.commission_id!)).amount_cents).toBe(15_000);
    expect((await commission(f, b.commission_id!)).amount_cents).toBe(1_000);
    expect((await commission(f, c.commission_id!)).amount_cents).toBe(3_000);
    const start = h.clock.now;
    h.clock.now = new Date(start.getTime() + 31 * DAY_MS);
    try {
      const later = await saleOf(f, 'rev-buyer', { amount_cents: 10_000 });
      expect((await commission(f, later.commission_id!)).amount_cents).toBe(1_000);
    } finally {
      h.clock.now = start;
    }
  });

  test('a rule change never rewrites recorded commissions', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'hist-buyer');
    const before = await saleOf(f, 'hist-buyer');
    await setRules(f, { sale: { type: 'percent', bps: 5000 } });
    const after = await saleOf(f, 'hist-buyer');
    expect(await commission(f, before.commission_id!)).toMatchObject({ amount_cents: 1_000, reward: { rule: 'base' } });
    expect(await commission(f, after.commission_id!)).toMatchObject({ amount_cents: 5_000, reward: { rule: 'sale' } });
  });

  test('invalid rules are refused naming the field, and change nothing', async () => {
    const f = await createProgramFixture(h);
    const r = await h.request(`/api/v1/admin/programs/${f.programId}`, {
      method: 'PATCH',
      // Per-currency amounts take any ISO 4217 code (CURRENCIES decides which sales exist); XYZ is none.
      body: { reward_rules: { sale: { type: 'flat', amounts: { XYZ: 100 } } } },
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toMatch(/reward_rules/);
    expect((await h.admin('GET', `/programs/${f.programId}`)).program.reward_rules).toBeNull();
  });
});

describe('partner groups', () => {
  test('a group’s rules replace the program’s for its partners only; leaving the group restores them', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'member-buyer');
    const outsider = await otherPartner(f, 'outsider-buyer');
    const { group } = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'Top affiliates',
      reward_rules: { sale: { type: 'percent', bps: 3000 } },
    });
    const moved = await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, {
      group_id: group.id,
    });
    expect(moved.partner.group).toBe(group.id);

    const member = await saleOf(f, 'member-buyer');
    const other = await saleOf(f, 'outsider-buyer');
    expect(await commission(f, member.commission_id!)).toMatchObject({
      amount_cents: 3_000,
      reward: { source: 'group', group_id: group.id, rule: 'sale' },
    });
    expect(await commission(f, other.commission_id!)).toMatchObject({ amount_cents: 1_000, partner: outsider.id });

    await h.admin('PATCH', `/programs/${f.programId}/partner-groups/${group.id}`, {
      reward_rules: { sale: { type: 'flat', amounts: { USD: 777 } } },
    });
    expect((await commission(f, (await saleOf(f, 'member-buyer')).commission_id!)).amount_cents).toBe(777);
    expect((await commission(f, member.commission_id!)).amount_cents).toBe(3_000);

    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: null });
    expect((await commission(f, (await saleOf(f, 'member-buyer')).commission_id!)).amount_cents).toBe(1_000);
    const { 'partner-groups': groups } = await h.admin('GET', `/programs/${f.programId}/partner-groups`);
    expect(groups.map((g: { name: string }) => g.name)).toEqual(['Top affiliates']);
  });

  test('a group’s recurring limit: renewals of its partners stop after the first sale while others earn for life', async () => {
    const f = await createProgramFixture(h, { recurring_policy: 'lifetime' });
    await clickAndLead(h, f, 'sub-member');
    await otherPartner(f, 'sub-outsider');
    const { group } = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'One-time',
      reward_rules: { recurring: { policy: 'one_time', months: null } },
    });
    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: group.id });
    const renewals: Array<number | null> = [];
    for (const key of ['sub-member', 'sub-outsider']) {
      await saleOf(f, key, { subscription_id: `sub-${key}`, sale_type: 'subscription' });
      const renewal = await saleOf(f, key, { subscription_id: `sub-${key}`, is_recurring: true });
      renewals.push(renewal.commission_id);
    }
    expect(renewals[0]).toBeNull();
    expect(renewals[1]).toEqual(expect.any(Number));
  });

  test('a group of another program, a duplicate name and an unknown partner are refused', async () => {
    const f = await createProgramFixture(h);
    const g = await createProgramFixture(h);
    const { group } = await h.admin('POST', `/programs/${g.programId}/partner-groups`, { name: 'Theirs' });
    await expect(
      h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: group.id }),
    ).rejects.toThrow(/404/);
    await expect(h.admin('POST', `/programs/${g.programId}/partner-groups`, { name: 'Theirs' })).rejects.toThrow(
      /400.*name/,
    );
    await expect(
      h.admin('PUT', `/programs/${f.programId}/partners/${g.partnerId}/group`, { group_id: null }),
    ).rejects.toThrow(/404/);
  });
});

const rewardArb = fc.oneof(
  fc.record({ type: fc.constant('percent'), bps: fc.integer({ min: 0, max: 10_000 }) }),
  fc.record({ type: fc.constant('flat'), amounts: fc.record({ USD: fc.integer({ min: 0, max: 1_000_000 }) }) }),
);

test('property: under any rule a full refund reverses the commission to exactly zero, never more than the sale', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'prop-buyer');
  await fc.assert(
    fc.asyncProperty(
      rewardArb,
      fc.integer({ min: 1, max: 5_000_000 }),
      fc.array(fc.integer({ min: 1, max: 5_000_000 }), { maxLength: 3 }),
      async (reward, amount, partials) => {
        await setRules(f, { sale: reward });
        const s = await saleOf(f, 'prop-buyer', { amount_cents: amount });
        const c0 = await commission(f, s.commission_id!);
        expect(c0.amount_cents).toBeGreaterThanOrEqual(0);
        expect(c0.amount_cents).toBeLessThanOrEqual(amount);
        const txn = s.transactionId;
        let refunded = 0;
        for (const [i, p] of partials.entries()) {
          const part = Math.min(p, amount - refunded - 1);
          if (part <= 0) break;
          refunded += part;
          const r = await h.request('/api/v1/track/refund', {
            body: { transaction_id: txn, refund_amount_cents: part, refund_id: `${txn}-r${i}` },
            headers: bearer(f.liveKey),
          });
          expect(r.status, JSON.stringify(r.body)).toBe(200);
        }
        const last = await h.request('/api/v1/track/refund', {
          body: { transaction_id: txn, refund_id: `${txn}-rest` },
          headers: bearer(f.liveKey),
        });
        expect(last.status, JSON.stringify(last.body)).toBe(200);
        const c1 = await commission(f, s.commission_id!);
        expect(c1.reversed_cents).toBe(c1.amount_cents);
        expect(c1.status).toBe('reversed');
      },
    ),
    { numRuns: 12 },
  );
});
