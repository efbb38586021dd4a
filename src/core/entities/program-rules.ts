/**
 * The stored shape of a program's (or a partner group's) rule columns: reward rules
 * (`program.reward_rules`, `partner_group.reward_rules`), fraud rules (`program.fraud_rules`) and a
 * held commission's hold record (`commission.hold`). Zod and the vocabulary only, so the entities,
 * the wire schemas and the dashboard's type check read them without the rules' evaluation
 * (rewards/reward-rules.ts, rewards/fraud-rules.ts).
 */
import { z } from 'zod';
import { RECURRING_POLICIES } from '../shared/vocabulary.ts';
import { currencyCodeSchema } from '../shared/currency-code.ts';

const bps = z.number().int().min(0).max(10_000);
/** Minor units; at most 2^53 − 1 like every amount. */
const cents = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const rewardSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('percent'), bps }),
  z.strictObject({
    type: z.literal('flat'),
    /** Per currency: a sale in a currency not listed falls through to the next rule. */
    amounts: z
      .partialRecord(currencyCodeSchema, cents)
      .refine((a) => Object.keys(a).length > 0, 'name an amount in at least one currency'),
  }),
]);
export type Reward = z.infer<typeof rewardSchema>;

export const TIER_METRICS = ['sales', 'revenue'] as const;
export type TierMetric = (typeof TIER_METRICS)[number];
export const TIER_PERIODS = ['calendar_month', 'last_30_days'] as const;
export type TierPeriod = (typeof TIER_PERIODS)[number];

export const rewardRulesSchema = z.strictObject({
  /**
   * The reward on a customer's first payment (a sale that follows no earlier attributed sale of its
   * customer or subscription in the program): wins over every other rule on that sale. A flat
   * reward in another currency falls through to the others. Renewals and later sales never earn it.
   */
  first_sale: rewardSchema.optional(),
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
  lead: z.strictObject({ currency: currencyCodeSchema, cents: cents.min(1) }).optional(),
  /** Renewals: replaces the program's recurring policy for partners under these rules. */
  recurring: z
    .strictObject({ policy: z.enum(RECURRING_POLICIES), months: z.number().int().min(1).max(600).nullable() })
    .optional(),
});
export type RewardRules = z.infer<typeof rewardRulesSchema>;

export const fraudRulesSchema = z.strictObject({
  /** The customer's email (its keyed hash, normalised: normalise-email.ts) is the partner's own. */
  self_referral: z.boolean().optional(),
  /** The customer's lead email is at a disposable-address domain (a maintained list). */
  disposable_email: z.boolean().optional(),
  /** The sale came less than this many seconds after its click (click farms, scripted checkouts). */
  fast_conversion_seconds: z.number().int().min(1).max(86_400).nullable().optional(),
  /**
   * The partner's clicks in the last `window_hours` (default 24) are at least `min_clicks`
   * (default 100) and more than `factor` times their own average for such a window over the 30
   * days before it (a partner with no history: any `min_clicks` in the window).
   */
  click_spike: z
    .strictObject({
      factor: z.number().min(1.5).max(1_000),
      window_hours: z.number().int().min(1).max(168).optional(),
      min_clicks: z.number().int().min(1).max(1_000_000).optional(),
    })
    .nullable()
    .optional(),
});
export type FraudRules = z.infer<typeof fraudRulesSchema>;

export const FRAUD_RULES = ['self_referral', 'disposable_email', 'fast_conversion', 'click_spike'] as const;
export type FraudRule = (typeof FRAUD_RULES)[number];

/** Why a commission is held: each rule that matched with its evidence; set when released or rejected. */
export type HoldRecord = {
  rules: Array<{ rule: FraudRule; evidence: Record<string, unknown> }>;
  held_at: string;
  released_at?: string;
  rejected_at?: string;
};
/** Which rule gave a commission and its inputs, stored with the commission (never re-evaluated). */
export type RewardApplied = {
  rule: 'first_sale' | 'product' | 'tier' | 'sale' | 'base' | 'lead';
  /** Whose rules: the partner's group, or the program's. */
  source: 'program' | 'group';
  group_id: number | null;
  type: 'percent' | 'flat';
  bps: number | null;
  flat_cents: number | null;
  product_id: string | null;
  tier: { metric: TierMetric; period: TierPeriod; value: number; from: number } | null;
};
