import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { RewardRules, FraudRules } from './program-rules.ts';
import type { PayoutSettings } from './payout-settings.ts';
import {
  RECURRING_POLICIES,
  type AttributionModel,
  type CouponPrecedence,
  type RecurringPolicy,
} from '../shared/vocabulary.ts';

export { RECURRING_POLICIES, type RecurringPolicy };

/** A merchant's affiliate program: the tenant every other row belongs to. */
export const Program = defineEntity({
  name: 'Program',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string(),
    /** Merchant site host (e.g. `shop.example`); affiliate URLs and browser Origins must match it. */
    domain: p.string().nullable(),
    /**
     * Where partners' links land by default (`https://shop.example/pricing`), on `domain` when one is
     * set; null: `https://<domain>/` (partner-links.ts).
     */
    landingUrl: p.text().nullable(),
    /** Commission rate in basis points (1000 = 10%). */
    commissionRateBps: p.integer().default(1000),
    /** Per-product commission policy: `{ [product_id]: bps }`, matched by the sale's `product_id`. */
    productRatesBps: p.json<Record<string, number>>().nullable(),
    cookieDurationDays: p.integer().default(60),
    attributionWindowDays: p.integer().default(60),
    holdPeriodDays: p.integer().default(30),
    recurringPolicy: p.string().$type<RecurringPolicy>().default('lifetime'),
    /** With policy `months`: how many months after the first sale renewals still earn. */
    recurringMonths: p.integer().nullable(),
    /** Requests per minute per API key on sale, refund and lead. */
    rateLimitPerMinute: p.integer().default(600),
    /** Whether keyless browser leads (`POST /track/browser-lead`) are accepted. */
    browserLeads: p.boolean().default(true),
    /**
     * Keep every raw click (default false: clicks older than the cookie and attribution windows,
     * already counted in the daily rollups and binding no customer, are deleted; click-retention.ts).
     */
    keepRawClicks: p.boolean().default(false),
    /** Platform fee on every live sale, basis points of `amount_cents`. */
    platformFeeBps: p.integer().default(0),
    /**
     * Commission base of provider sales: false (default) records the amount the customer paid
     * after discounts and credit, before tax; true includes the tax. API sales are never changed.
     */
    providerAmountIncludesTax: p.boolean().default(false),
    /** Reward rules (reward-rules.ts); null: `commissionRateBps` and `productRatesBps` alone. */
    rewardRules: p.json<RewardRules>().nullable(),
    /** Fraud rules switched on (fraud-rules.ts); null: none. */
    fraudRules: p.json<FraudRules>().nullable(),
    /** Payout rail, minimum and schedule (payout-settings.ts); null: manual, no minimum. */
    payoutSettings: p.json<PayoutSettings>().nullable(),
    /** A sale with both a partner's click and a partner's code: whose it is (vocabulary.ts). */
    couponPrecedence: p.string().$type<CouponPrecedence>().default('click'),
    /** Whether a later partner link takes a visitor's click over (vocabulary.ts). */
    attributionModel: p.string().$type<AttributionModel>().default('last_click'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IProgram = InferEntity<typeof Program>;
