import { z } from 'zod';
import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { Program, RECURRING_POLICIES, type IProgram } from './entities/program.ts';
import { Partner, type IPartner } from './entities/partner.ts';
import { settingsCache } from './settings-cache.ts';

const bps = z.number().int().min(0).max(10_000);
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]+\.)*[a-z0-9-]+$/, 'a host name such as shop.example.com');

/** Every configurable program field (admin API and CLI), snake_case as on the wire. */
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

const toEntity = (c: Partial<ProgramConfig>) =>
  Object.fromEntries(
    Object.entries({
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
    }).filter(([, v]) => v !== undefined),
  );

/** The wire form of a program (never includes secrets). */
export function programToJson(p: IProgram): ProgramConfig & { id: number; created_at: string } {
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

export async function createProgram(deps: CoreDeps, input: z.infer<typeof programCreateSchema>): Promise<IProgram> {
  const em = deps.em.fork();
  const program = em.create(Program, toEntity(input) as { name: string });
  await em.flush();
  return program;
}

export async function updateProgram(
  deps: CoreDeps,
  programId: number,
  input: z.infer<typeof programUpdateSchema>,
): Promise<IProgram> {
  const em = deps.em.fork();
  const program = await em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  em.assign(program, toEntity(input));
  await em.flush();
  await em.clearCache(settingsCache.program(programId)[0]);
  return program;
}

export const partnerCreateSchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, '2-64 letters, digits, "-" or "_"'),
  name: z.string().trim().min(1).max(200),
  email: z.email().max(255).nullable().optional(),
});

/** Creates a partner; its `code` is the `aff` value of its links, unique across the service. */
export async function createPartner(
  deps: CoreDeps,
  programId: number,
  input: z.infer<typeof partnerCreateSchema>,
): Promise<IPartner> {
  const em = deps.em.fork();
  if (!(await em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  if (await em.count(Partner, { code: input.code }))
    throw new AppError('invalid_request', `Referral code "${input.code}" is taken`, { field: 'code' });
  const partner = em.create(Partner, {
    program: programId,
    code: input.code,
    name: input.name,
    email: input.email ?? null,
  });
  await em.flush();
  return partner;
}
