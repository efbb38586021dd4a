import { describe, expect, test } from 'vitest';
import { evaluateReward, renewalEarns } from '../../src/core/rewards/reward-rules.ts';
import { rewardRulesSchema, type RewardRules } from '../../src/core/entities/program-rules.ts';
import type { Currency } from '../../src/core/shared/vocabulary.ts';

const PROGRAM = { source: 'program' as const, groupId: null };
const BASE = { commissionRateBps: 1000 };
const FIFTY_THEN_THIRTY: RewardRules = {
  first_sale: { type: 'flat', amounts: { USD: 5_000 } },
  sale: { type: 'percent', bps: 3_000 },
  products: { pro: { type: 'percent', bps: 4_000 } },
  recurring: { policy: 'months', months: 12 },
};
const sale = (o: Partial<{ amountCents: number; currency: Currency; productId: string; firstSale: boolean }> = {}) => ({
  amountCents: 20_000,
  currency: 'USD' as Currency,
  productId: null,
  tierValue: 1,
  ...o,
});

describe('first-sale reward: which rule applies', () => {
  test.each([
    [
      'the first payment earns the first-sale reward',
      FIFTY_THEN_THIRTY,
      sale({ firstSale: true }),
      5_000,
      'first_sale',
    ],
    ['a later sale earns the sale reward', FIFTY_THEN_THIRTY, sale({ firstSale: false }), 6_000, 'sale'],
    ['not told it is a first sale: the sale reward', FIFTY_THEN_THIRTY, sale(), 6_000, 'sale'],
    [
      'the first-sale reward beats a product override',
      FIFTY_THEN_THIRTY,
      sale({ firstSale: true, productId: 'pro' }),
      5_000,
      'first_sale',
    ],
    [
      'a flat first-sale reward without the currency falls through',
      FIFTY_THEN_THIRTY,
      sale({ firstSale: true, currency: 'EUR' }),
      6_000,
      'sale',
    ],
    [
      'capped at the sale amount',
      FIFTY_THEN_THIRTY,
      sale({ firstSale: true, amountCents: 3_000 }),
      3_000,
      'first_sale',
    ],
    [
      'a percentage first-sale reward',
      { first_sale: { type: 'percent', bps: 5_000 } },
      sale({ firstSale: true }),
      10_000,
      'first_sale',
    ],
    ['no first-sale reward: the program rate', { sale: undefined }, sale({ firstSale: true }), 2_000, 'base'],
  ] as Array<[string, RewardRules, ReturnType<typeof sale>, number, string]>)('%s', (_l, rules, s, cents, rule) => {
    expect(evaluateReward(rules, PROGRAM, BASE, s)).toMatchObject({ cents, applied: { rule } });
  });

  test('renewals: month 2 earns, month 13 does not (12 months from the first sale)', () => {
    const first = new Date('2026-01-15T10:00:00Z');
    const program = { recurringPolicy: 'lifetime' as const };
    expect(renewalEarns(FIFTY_THEN_THIRTY, program, first, new Date('2026-02-15T10:00:00Z'))).toBe(true);
    expect(renewalEarns(FIFTY_THEN_THIRTY, program, first, new Date('2027-01-15T09:59:59Z'))).toBe(true);
    expect(renewalEarns(FIFTY_THEN_THIRTY, program, first, new Date('2027-02-15T10:00:00Z'))).toBe(false);
  });

  test('the schema accepts it beside every other rule and refuses a malformed one', () => {
    expect(rewardRulesSchema.safeParse(FIFTY_THEN_THIRTY).success).toBe(true);
    expect(rewardRulesSchema.safeParse({ first_sale: { type: 'flat', amounts: {} } }).success).toBe(false);
    expect(rewardRulesSchema.safeParse({ first_sale: { type: 'percent', bps: 10_001 } }).success).toBe(false);
  });
});
