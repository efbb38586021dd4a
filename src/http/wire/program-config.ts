import { z } from 'zod';
import { ATTRIBUTION_MODELS, COUPON_PRECEDENCES, RECURRING_POLICIES } from '../../core/shared/vocabulary.ts';
import { rewardRulesSchema, fraudRulesSchema } from '../../core/entities/program-rules.ts';
import { payoutSettingsSchema } from '../../core/entities/payout-settings.ts';
import { landingUrlProblem, MAX_LINK_LENGTH } from '../../core/shared/partner-links.ts';

/*
 * A program's settings on the wire: the admin API validates them with these schemas and answers
 * programs as `ProgramWire` (programs.ts maps both to and from core). Zod and the vocabulary
 * only: the dashboard's type check reads this file.
 */

const bps = z.number().int().min(0).max(10_000);
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]+\.)*[a-z0-9-]+$/, 'a host name such as shop.example.com');

/** Every configurable program field (admin API), snake_case as on the wire. */
export const programConfigSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  domain: domain.nullable(),
  /**
   * Where partners' links land by default (extension): a full https:// address with any path, on
   * `domain` when one is set (http:// only on localhost or 127.0.0.1); null: `https://<domain>/`.
   */
  landing_url: z
    .string()
    .trim()
    .max(MAX_LINK_LENGTH)
    .nullable()
    .superRefine((url, c) => {
      const problem = url === null ? null : landingUrlProblem(url, null);
      if (problem) c.addIssue({ code: 'custom', message: problem });
    })
    .meta({
      description:
        "Where partners' links land by default (extension): a full https:// address on `domain` (http:// only on localhost or 127.0.0.1); null: `https://<domain>/`",
    }),
  commission_rate_bps: bps,
  product_rates_bps: z.record(z.string().min(1).max(255), bps).nullable(),
  cookie_duration_days: z.number().int().min(1).max(3650),
  attribution_window_days: z.number().int().min(1).max(3650),
  hold_period_days: z.number().int().min(0).max(365),
  recurring_policy: z.enum(RECURRING_POLICIES),
  recurring_months: z.number().int().min(1).max(600).nullable(),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000),
  platform_fee_bps: bps,
  /** Accept keyless browser leads (tracker `signup`); false leaves only keyed leads. */
  browser_leads: z.boolean(),
  /** Keep every raw click (default false: clicks past the cookie and attribution windows that bound no customer are deleted once rolled up). */
  keep_raw_clicks: z.boolean(),
  /** Commission base of provider sales: true includes the tax the customer paid (default false). */
  provider_amount_includes_tax: z.boolean(),
  /** A sale with both a partner's click and a partner's coupon code: whose it is (default `click`). */
  coupon_precedence: z.enum(COUPON_PRECEDENCES),
  /** `last_click` (default): a later partner link takes a visitor's click over; `first_click`: the first keeps it for the cookie duration. */
  attribution_model: z.enum(ATTRIBUTION_MODELS),
  /**
   * Flat and percentage rewards, per-product overrides, tiers and a recurring policy (see the
   * docs/commissions.md, "Reward rules"); null: `commission_rate_bps` and `product_rates_bps` alone.
   */
  reward_rules: rewardRulesSchema.nullable(),
  /** Fraud rules that hold new commissions for review (docs/commissions.md, "Fraud holds"); null: none. */
  fraud_rules: fraudRulesSchema.nullable(),
  /** Payout rail, minimum per currency and schedule (docs/balances-and-payouts.md, "Payout runs"); null: manual, no minimum. */
  payout_settings: payoutSettingsSchema.nullable(),
});
export type ProgramConfig = z.infer<typeof programConfigSchema>;
export const programCreateSchema = programConfigSchema.partial().required({ name: true });
export const programUpdateSchema = programConfigSchema.partial();

/** A program as the admin API answers it (`programToWire`): every setting, its id and creation time. */
export type ProgramWire = ProgramConfig & { id: number; created_at: string };
/** `GET /programs`; one program (create, read, update) is a `ProgramBody`. */
export type ProgramListBody = { programs: ProgramWire[] };
export type ProgramBody = { program: ProgramWire };

/** A program as the admin API answers it (the document's schema of `programToWire`). */
export const programJson = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  domain: z.string().nullable(),
  landing_url: z
    .string()
    .nullable()
    .optional()
    .meta({ description: "Where partners' links land by default (extension); null: `https://<domain>/`" }),
  commission_rate_bps: z.number().int(),
  product_rates_bps: z.record(z.string(), z.number().int()).nullable(),
  cookie_duration_days: z.number().int(),
  attribution_window_days: z.number().int(),
  hold_period_days: z.number().int(),
  recurring_policy: z.string(),
  recurring_months: z.number().int().nullable(),
  rate_limit_per_minute: z.number().int(),
  platform_fee_bps: z.number().int(),
  coupon_precedence: z.string(),
  attribution_model: z.string(),
  reward_rules: z.looseObject({}).nullable(),
  fraud_rules: z.looseObject({}).nullable(),
  payout_settings: z.looseObject({}).nullable(),
  created_at: z.iso.datetime(),
});
