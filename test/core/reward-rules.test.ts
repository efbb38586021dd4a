import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CURRENCIES, type Currency } from '../../src/core/shared/vocabulary.ts';
import { computeReversal } from '../../src/core/shared/money.ts';
import { planLeadReversal } from '../../src/core/refunds/reverse-lead-commission.ts';
import { evaluateLeadReward, evaluateReward } from '../../src/core/rewards/reward-rules.ts';
import {
  rewardRulesSchema,
  TIER_METRICS,
  TIER_PERIODS,
  type Reward,
  type RewardRules,
} from '../../src/core/entities/program-rules.ts';

const PROGRAM = { source: 'program' as const, groupId: null };
const BASE = { commissionRateBps: 1000, productRatesBps: { legacy_prod: 2500 } };
const sale = (
  o: Partial<{ amountCents: number; currency: Currency; productId: string | null; tierValue: number }> = {},
) => ({
  amountCents: 10_000,
  currency: 'USD' as Currency,
  productId: null,
  tierValue: 1,
  ...o,
});
const run = (rules: RewardRules | null, s = sale()) => evaluateReward(rules, PROGRAM, BASE, s);

const tiers: RewardRules = {
  sale: { type: 'percent', bps: 1000 },
  tiers: {
    metric: 'sales',
    period: 'calendar_month',
    steps: [
      { from: 10, reward: { type: 'percent', bps: 1500 } },
      { from: 50, reward: { type: 'flat', amounts: { USD: 4_000 } } },
    ],
  },
};

describe('reward rules: which rule applies and what it pays', () => {
  test.each([
    ['no rules: the program rate', null, sale(), 1000, 'base', 1000],
    ['no rules: the program product rate', null, sale({ productId: 'legacy_prod' }), 2500, 'base', 2500],
    ['percent sale reward', { sale: { type: 'percent', bps: 300 } }, sale(), 300, 'sale', 300],
    ['percent rounds half-up', { sale: { type: 'percent', bps: 1 } }, sale({ amountCents: 5_000 }), 1, 'sale', 1],
    [
      'percent rounds half-up (below half)',
      { sale: { type: 'percent', bps: 1 } },
      sale({ amountCents: 4_999 }),
      0,
      'sale',
      1,
    ],
    [
      'flat in the sale currency',
      { sale: { type: 'flat', amounts: { USD: 2_500, EUR: 2_000 } } },
      sale(),
      2_500,
      'sale',
      0,
    ],
    [
      'flat in another listed currency',
      { sale: { type: 'flat', amounts: { USD: 2_500, EUR: 2_000 } } },
      sale({ currency: 'EUR' }),
      2_000,
      'sale',
      0,
    ],
    [
      'flat without the sale currency falls through to the program rate',
      { sale: { type: 'flat', amounts: { EUR: 2_000 } } },
      sale(),
      1000,
      'base',
      1000,
    ],
    ['flat capped at the sale amount', { sale: { type: 'flat', amounts: { USD: 50_000 } } }, sale(), 10_000, 'sale', 0],
    [
      'product override beats the sale reward',
      { sale: { type: 'percent', bps: 300 }, products: { p1: { type: 'flat', amounts: { USD: 700 } } } },
      sale({ productId: 'p1' }),
      700,
      'product',
      0,
    ],
    [
      'another product: the sale reward',
      { sale: { type: 'percent', bps: 300 }, products: { p1: { type: 'flat', amounts: { USD: 700 } } } },
      sale({ productId: 'p2' }),
      300,
      'sale',
      300,
    ],
    ['tier: below the first step', tiers, sale({ tierValue: 9 }), 1000, 'sale', 1000],
    ['tier: exactly the first step', tiers, sale({ tierValue: 10 }), 1500, 'tier', 1500],
    ['tier: between steps', tiers, sale({ tierValue: 49 }), 1500, 'tier', 1500],
    ['tier: exactly the second step (flat)', tiers, sale({ tierValue: 50 }), 4_000, 'tier', 0],
    [
      'tier: flat step without the currency falls to the sale reward',
      tiers,
      sale({ tierValue: 50, currency: 'EUR' }),
      1000,
      'sale',
      1000,
    ],
    [
      'product override beats a tier',
      { ...tiers, products: { p1: { type: 'percent', bps: 100 } } },
      sale({ tierValue: 60, productId: 'p1' }),
      100,
      'product',
      100,
    ],
  ] as Array<[string, RewardRules | null, ReturnType<typeof sale>, number, string, number]>)(
    '%s',
    (_label, rules, s, cents, rule, rateBps) => {
      const r = run(rules, s);
      expect(r).toMatchObject({ cents, rateBps, applied: { rule } });
    },
  );

  test('the applied rule records its inputs (tier value and step, group)', () => {
    const r = evaluateReward(tiers, { source: 'group', groupId: 7 }, BASE, sale({ tierValue: 12 }));
    expect(r.applied).toEqual({
      rule: 'tier',
      source: 'group',
      group_id: 7,
      type: 'percent',
      bps: 1500,
      flat_cents: null,
      product_id: null,
      tier: { metric: 'sales', period: 'calendar_month', value: 12, from: 10 },
    });
  });

  test.each([
    ['a flat reward naming no currency', { sale: { type: 'flat', amounts: {} } }],
    ['tier steps out of order', { tiers: { ...tiers.tiers, steps: [...tiers.tiers!.steps].reverse() } }],
    ['a negative amount', { sale: { type: 'flat', amounts: { USD: -1 } } }],
    ['a rate above 100 %', { sale: { type: 'percent', bps: 10_001 } }],
    ['a code that is no ISO 4217 currency', { sale: { type: 'flat', amounts: { XYZ: 100 } } }],
    ['a lower-case code', { sale: { type: 'flat', amounts: { gbp: 100 } } }],
    ['an unknown field', { sale: { type: 'percent', bps: 100 }, bonus: 1 }],
    ['a lead reward of 0', { lead: { currency: 'USD', cents: 0 } }],
    ['a lead reward in two currencies', { lead: { currency: 'USD', cents: 500, amounts: { EUR: 400 } } }],
  ])('refused: %s', (_label, rules) => {
    expect(rewardRulesSchema.safeParse(rules).success).toBe(false);
  });
});

const rewardArb: fc.Arbitrary<Reward> = fc.oneof(
  fc.record({ type: fc.constant('percent' as const), bps: fc.integer({ min: 0, max: 10_000 }) }),
  fc.record({
    type: fc.constant('flat' as const),
    amounts: fc
      .dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), {
        minKeys: 1,
      })
      .map((a) => a as Partial<Record<Currency, number>>),
  }),
);
const rulesArb: fc.Arbitrary<RewardRules | null> = fc.option(
  fc.record(
    {
      sale: rewardArb,
      products: fc.dictionary(fc.constantFrom('p1', 'p2'), rewardArb),
      tiers: fc.record({
        metric: fc.constantFrom(...TIER_METRICS),
        period: fc.constantFrom(...TIER_PERIODS),
        steps: fc
          .uniqueArray(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 4 })
          .chain((froms) =>
            fc.tuple(...froms.sort((a, b) => a - b).map((from) => rewardArb.map((reward) => ({ from, reward })))),
          ),
      }),
    },
    { requiredKeys: [] },
  ),
);

test('property: for every rule, 0 ≤ commission ≤ sale amount, and any refunds summing to the sale reverse it exactly', () => {
  fc.assert(
    fc.property(
      rulesArb,
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(...CURRENCIES),
      fc.constantFrom(null, 'p1', 'p2', 'legacy_prod'),
      fc.integer({ min: 0, max: 2_000 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
      (rules, amountCents, currency, productId, tierValue, cuts) => {
        expect(rewardRulesSchema.safeParse(rules ?? {}).success).toBe(true);
        const { cents } = evaluateReward(rules, PROGRAM, BASE, { amountCents, currency, productId, tierValue });
        expect(Number.isSafeInteger(cents)).toBe(true);
        expect(cents).toBeGreaterThanOrEqual(0);
        expect(cents).toBeLessThanOrEqual(amountCents);
        // Partial refunds at random points, then the rest: the reversals sum to the commission.
        const points = [...cuts.map((c) => Math.floor(c * amountCents)).sort((a, b) => a - b), amountCents];
        let reversed = 0;
        for (const refundedTotal of points) {
          const r = computeReversal({
            commissionCents: cents,
            saleAmountCents: amountCents,
            refundedTotalCents: refundedTotal,
            alreadyReversedCents: reversed,
          });
          expect(r).toBeGreaterThanOrEqual(0);
          reversed += r;
        }
        expect(reversed).toBe(cents);
      },
    ),
    { numRuns: 500 },
  );
});

describe('reward per lead', () => {
  test.each([
    ['no rules', null, null],
    ['rules without a lead reward', { sale: { type: 'percent', bps: 2000 } } as RewardRules, null],
    ['a lead reward', { lead: { currency: 'EUR', cents: 500 } } as RewardRules, { cents: 500, currency: 'EUR' }],
    [
      'a lead reward beside sale rules (they never apply to a lead)',
      { sale: { type: 'flat', amounts: { USD: 9_000 } }, lead: { currency: 'USD', cents: 250 } } as RewardRules,
      { cents: 250, currency: 'USD' },
    ],
  ])('%s', (_label, rules, expected) => {
    const r = evaluateLeadReward(rules, { source: 'group', groupId: 3 });
    if (!expected) return expect(r).toBeNull();
    expect(r).toEqual({
      ...expected,
      applied: {
        rule: 'lead',
        source: 'group',
        group_id: 3,
        type: 'flat',
        bps: null,
        flat_cents: expected.cents,
        product_id: null,
        tier: null,
      },
    });
  });

  test('property: any reversals, then one of all that remains, take back exactly the lead reward and never more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.array(fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })), { maxLength: 6 }),
        (cents, requests) => {
          const rules = rewardRulesSchema.parse({ lead: { currency: 'USD', cents } });
          const amountCents = evaluateLeadReward(rules, PROGRAM)!.cents;
          expect(amountCents).toBe(cents);
          let reversedCents = 0;
          for (const requested of [...requests, null]) {
            if (reversedCents === amountCents) break;
            const plan = planLeadReversal({ amountCents, reversedCents }, requested);
            expect(plan.deductionCents).toBeGreaterThanOrEqual(0);
            reversedCents += plan.deductionCents;
            expect(reversedCents).toBeLessThanOrEqual(amountCents);
            expect(plan.status).toBe(reversedCents === amountCents ? 'reversed' : 'refunded');
          }
          expect(reversedCents).toBe(amountCents);
        },
      ),
      { numRuns: 500 },
    );
  });
});
