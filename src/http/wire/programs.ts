import { z } from 'zod';
import { RECURRING_POLICIES } from '../../core/vocabulary.ts';
import type { ProgramCreate, ProgramSettings, StoredProgram } from '../../core/programs.ts';

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
  /** Commission base of provider sales: true includes the tax the customer paid (default false). */
  provider_amount_includes_tax: z.boolean(),
});
export type ProgramConfig = z.infer<typeof programConfigSchema>;
export const programCreateSchema = programConfigSchema.partial().required({ name: true });
export const programUpdateSchema = programConfigSchema.partial();

/** The wire settings as core's (a field left out stays `undefined`: unchanged or the default). */
export function programSettingsFromWire(c: z.infer<typeof programCreateSchema>): ProgramCreate;
export function programSettingsFromWire(c: Partial<ProgramConfig>): Partial<ProgramSettings>;
export function programSettingsFromWire(c: Partial<ProgramConfig>): Partial<ProgramSettings> {
  return {
    name: c.name,
    domain: c.domain,
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
    providerAmountIncludesTax: c.provider_amount_includes_tax,
  };
}

/** The wire form of a program (never includes secrets). */
export function programToWire(p: StoredProgram): ProgramConfig & { id: number; created_at: string } {
  return {
    id: p.id,
    name: p.name,
    domain: p.domain ?? null,
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
    provider_amount_includes_tax: p.providerAmountIncludesTax,
    created_at: p.createdAt.toISOString(),
  };
}

/** A program as the admin API answers it (the document's schema of `programToWire`). */
export const programJson = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  domain: z.string().nullable(),
  commission_rate_bps: z.number().int(),
  product_rates_bps: z.record(z.string(), z.number().int()).nullable(),
  cookie_duration_days: z.number().int(),
  attribution_window_days: z.number().int(),
  hold_period_days: z.number().int(),
  recurring_policy: z.string(),
  recurring_months: z.number().int().nullable(),
  rate_limit_per_minute: z.number().int(),
  platform_fee_bps: z.number().int(),
  created_at: z.iso.datetime(),
});
