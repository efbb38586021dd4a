/**
 * What a partner earns on a sale: a program's (or a partner group's) reward rules, and their pure
 * evaluation. Zod and the vocabulary only: the wire schemas and the dashboard's type check read
 * this file.
 *
 * Evaluation, first that applies: the rules' product override for the sale's `product_id`; the
 * tier step the partner's results reach; the rules' sale reward; the program's own rates
 * (`product_rates_bps`, then `commission_rate_bps`). A flat reward applies only when it names an
 * amount in the sale's currency. A commission is integer minor units of the sale's currency:
 * a percentage is `amount × bps / 10 000` rounded half-up; a flat amount is capped at the sale's
 * amount, so a commission is never negative and never more than the sale.
 */
import { z } from 'zod';
import { CURRENCIES, RECURRING_POLICIES, type Currency, type RecurringPolicy } from '../shared/vocabulary.ts';
import { calculateCommission } from '../shared/money.ts';

const bps = z.number().int().min(0).max(10_000);
/** Minor units; at most 2^53 − 1 like every amount. */
const cents = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const rewardSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('percent'), bps }),
  z.strictObject({
    type: z.literal('flat'),
    /** Per currency: a sale in a currency not listed falls through to the next rule. */
    amounts: z
      .partialRecord(z.enum(CURRENCIES), cents)
      .refine((a) => Object.keys(a).length > 0, 'name an amount in at least one currency'),
  }),
]);
export type Reward = z.infer<typeof rewardSchema>;

export const TIER_METRICS = ['sales', 'revenue'] as const;
export type TierMetric = (typeof TIER_METRICS)[number];
export const TIER_PERIODS = ['calendar_month', 'last_30_days'] as const;
export type TierPeriod = (typeof TIER_PERIODS)[number];

export const rewardRulesSchema = z.strictObject({
  /** The reward on a sale when no product override or tier applies. */
  sale: rewardSchema.optional(),
  /** Per `product_id`: wins over tiers and the sale reward. */
  products: z.record(z.string().min(1).max(255), rewardSchema).optional(),
  /**
   * Steps on the partner's results in the period, this sale included: `sales` counts the
   * partner's sales in the program, `revenue` sums their amounts in the sale's currency (minor
   * units). The step with the highest `from` the results reach applies; below the first step,
   * the sale reward does.
   */
  tiers: z
    .strictObject({
      metric: z.enum(TIER_METRICS),
      period: z.enum(TIER_PERIODS),
      steps: z
        .array(z.strictObject({ from: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), reward: rewardSchema }))
        .min(1)
        .max(20)
        .refine((s) => s.every((step, i) => i === 0 || step.from > s[i - 1]!.from), 'steps ascend by `from`'),
    })
    .optional(),
  /**
   * A reward per lead (signup): one flat amount in one currency, earned once per customer when a
   * keyed lead (or a provider checkout's implicit lead) first binds the customer to this partner.
   */
  lead: z.strictObject({ currency: z.enum(CURRENCIES), cents: cents.min(1) }).optional(),
  /** Renewals: replaces the program's recurring policy for partners under these rules. */
  recurring: z
    .strictObject({ policy: z.enum(RECURRING_POLICIES), months: z.number().int().min(1).max(600).nullable() })
    .optional(),
});
export type RewardRules = z.infer<typeof rewardRulesSchema>;

/** The program's own rates, the last rule of every evaluation. */
export type BaseRates = { commissionRateBps: number; productRatesBps?: Record<string, number> | null };

/** Which rule gave a commission and its inputs, stored with the commission (never re-evaluated). */
export type RewardApplied = {
  rule: 'product' | 'tier' | 'sale' | 'base' | 'lead';
  /** Whose rules: the partner's group, or the program's. */
  source: 'program' | 'group';
  group_id: number | null;
  type: 'percent' | 'flat';
  bps: number | null;
  flat_cents: number | null;
  product_id: string | null;
  tier: { metric: TierMetric; period: TierPeriod; value: number; from: number } | null;
};

/** The sale an evaluation is for. `tierValue`: the partner's results (only read when the rules have tiers). */
export type RewardInput = { amountCents: number; currency: Currency; productId: string | null; tierValue: number };

/** The commission (minor units), the rate to store (`bps`, 0 for a flat reward) and what applied. */
export function evaluateReward(
  rules: RewardRules | null,
  terms: { source: 'program' | 'group'; groupId: number | null },
  base: BaseRates,
  sale: RewardInput,
): { cents: number; rateBps: number; applied: RewardApplied } {
  const candidates: Array<{ reward: Reward; rule: RewardApplied['rule']; tier?: RewardApplied['tier'] }> = [];
  const product = sale.productId ? rules?.products?.[sale.productId] : undefined;
  if (product) candidates.push({ reward: product, rule: 'product' });
  const tiers = rules?.tiers;
  const step = tiers?.steps.findLast((s) => sale.tierValue >= s.from);
  if (tiers && step)
    candidates.push({
      reward: step.reward,
      rule: 'tier',
      tier: { metric: tiers.metric, period: tiers.period, value: sale.tierValue, from: step.from },
    });
  if (rules?.sale) candidates.push({ reward: rules.sale, rule: 'sale' });
  const byProduct = sale.productId ? base.productRatesBps?.[sale.productId] : undefined;
  candidates.push({ reward: { type: 'percent', bps: byProduct ?? base.commissionRateBps }, rule: 'base' });

  for (const c of candidates) {
    const flat = c.reward.type === 'flat' ? c.reward.amounts[sale.currency] : undefined;
    if (c.reward.type === 'flat' && flat === undefined) continue;
    const applied: RewardApplied = {
      rule: c.rule,
      source: terms.source,
      group_id: terms.groupId,
      type: c.reward.type,
      bps: c.reward.type === 'percent' ? c.reward.bps : null,
      flat_cents: flat ?? null,
      product_id: c.rule === 'product' || (c.rule === 'base' && byProduct !== undefined) ? sale.productId : null,
      tier: c.tier ?? null,
    };
    if (c.reward.type === 'percent')
      return { cents: calculateCommission(sale.amountCents, c.reward.bps), rateBps: c.reward.bps, applied };
    return { cents: Math.min(flat as number, sale.amountCents), rateBps: 0, applied };
  }
  throw new Error('unreachable: the base rate always applies');
}

/** The reward on a lead under these rules, or null when they have none. */
export function evaluateLeadReward(
  rules: RewardRules | null,
  terms: { source: 'program' | 'group'; groupId: number | null },
): { cents: number; currency: Currency; applied: RewardApplied } | null {
  if (!rules?.lead) return null;
  const { cents, currency } = rules.lead;
  return {
    cents,
    currency,
    applied: {
      rule: 'lead',
      source: terms.source,
      group_id: terms.groupId,
      type: 'flat',
      bps: null,
      flat_cents: cents,
      product_id: null,
      tier: null,
    },
  };
}

/**
 * Whether a renewal earns under these rules' recurring policy (theirs, else the program's):
 * `lifetime` always, `one_time` never, `months` within N months (default 12) of the first sale.
 */
export function renewalEarns(
  rules: RewardRules | null,
  program: { recurringPolicy: RecurringPolicy; recurringMonths?: number | null },
  firstSaleAt: Date,
  now: Date,
): boolean {
  const policy = rules?.recurring?.policy ?? program.recurringPolicy;
  if (policy === 'lifetime') return true;
  if (policy === 'one_time') return false;
  const months = (rules?.recurring ? rules.recurring.months : program.recurringMonths) ?? 12;
  const until = new Date(firstSaleAt);
  until.setUTCMonth(until.getUTCMonth() + months);
  return now < until;
}
