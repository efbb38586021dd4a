import type { z } from 'zod';
import type { ProgramCreate, ProgramSettings, StoredProgram } from '../../core/programs/programs.ts';
import type { ProgramConfig, ProgramWire, programCreateSchema } from './program-config.ts';

/** The wire settings as core's (a field left out stays `undefined`: unchanged or the default). */
export function programSettingsFromWire(c: z.infer<typeof programCreateSchema>): ProgramCreate;
export function programSettingsFromWire(c: Partial<ProgramConfig>): Partial<ProgramSettings>;
export function programSettingsFromWire(c: Partial<ProgramConfig>): Partial<ProgramSettings> {
  return {
    name: c.name,
    domain: c.domain,
    landingUrl: c.landing_url,
    commissionRateBps: c.commission_rate_bps,
    productRatesBps: c.product_rates_bps,
    cookieDurationDays: c.cookie_duration_days,
    attributionWindowDays: c.attribution_window_days,
    holdPeriodDays: c.hold_period_days,
    recurringPolicy: c.recurring_policy,
    recurringMonths: c.recurring_months,
    rateLimitPerMinute: c.rate_limit_per_minute,
    platformFeeBps: c.platform_fee_bps,
    browserLeads: c.browser_leads,
    keepRawClicks: c.keep_raw_clicks,
    providerAmountIncludesTax: c.provider_amount_includes_tax,
    couponPrecedence: c.coupon_precedence,
    attributionModel: c.attribution_model,
    rewardRules: c.reward_rules,
    fraudRules: c.fraud_rules,
    payoutSettings: c.payout_settings,
  };
}

/** The wire form of a program (never includes secrets). */
export function programToWire(p: StoredProgram): ProgramWire {
  return {
    id: p.id,
    name: p.name,
    domain: p.domain ?? null,
    landing_url: p.landingUrl ?? null,
    commission_rate_bps: p.commissionRateBps,
    product_rates_bps: p.productRatesBps ?? null,
    cookie_duration_days: p.cookieDurationDays,
    attribution_window_days: p.attributionWindowDays,
    hold_period_days: p.holdPeriodDays,
    recurring_policy: p.recurringPolicy,
    recurring_months: p.recurringMonths ?? null,
    rate_limit_per_minute: p.rateLimitPerMinute,
    platform_fee_bps: p.platformFeeBps,
    browser_leads: p.browserLeads,
    keep_raw_clicks: p.keepRawClicks,
    provider_amount_includes_tax: p.providerAmountIncludesTax,
    coupon_precedence: p.couponPrecedence,
    attribution_model: p.attributionModel,
    reward_rules: p.rewardRules ?? null,
    fraud_rules: p.fraudRules ?? null,
    payout_settings: p.payoutSettings ?? null,
    created_at: p.createdAt.toISOString(),
  };
}
