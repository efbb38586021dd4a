import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program, type IProgram, type RecurringPolicy } from '../entities/program.ts';
import type { AttributionModel, CouponPrecedence } from '../shared/vocabulary.ts';
import type { RewardRules, FraudRules } from '../entities/program-rules.ts';
import type { PayoutSettings } from '../entities/payout-settings.ts';
import { Partner, type IPartner } from '../entities/partner.ts';
import { landingUrlProblem } from '../shared/partner-links.ts';
import { emitPartnerCreated } from '../outbound/use-case-events.ts';

/** Every configurable program field (the admin API validates and maps them from its wire form). */
export type ProgramSettings = {
  name: string;
  domain: string | null;
  /** Where partners' links land by default, on `domain` when one is set (shared/partner-links.ts). */
  landingUrl: string | null;
  commissionRateBps: number;
  productRatesBps: Record<string, number> | null;
  cookieDurationDays: number;
  attributionWindowDays: number;
  holdPeriodDays: number;
  recurringPolicy: RecurringPolicy;
  recurringMonths: number | null;
  rateLimitPerMinute: number;
  platformFeeBps: number;
  /** Accept keyless browser leads (tracker `signup`); false leaves only keyed leads. */
  browserLeads: boolean;
  /** Keep every raw click: no click retention (click-retention.ts). */
  keepRawClicks: boolean;
  /** Commission base of provider sales: true includes the tax the customer paid (default false). */
  providerAmountIncludesTax: boolean;
  /** A sale with both a partner's click and a partner's code: `click` (default) or `coupon` wins. */
  couponPrecedence: CouponPrecedence;
  /** `last_click` (default) or `first_click`: whether a later partner link takes a click over. */
  attributionModel: AttributionModel;
  /** Reward rules (reward-rules.ts); null: `commissionRateBps` and `productRatesBps` alone. */
  rewardRules: RewardRules | null;
  /** Fraud rules switched on (fraud-rules.ts); null: none. */
  fraudRules: FraudRules | null;
  /** Payout rail, minimum and schedule (payout-settings.ts); null: manual, no minimum. */
  payoutSettings: PayoutSettings | null;
};
/** A new program: a name, and any settings that differ from the defaults. */
export type ProgramCreate = Partial<ProgramSettings> & { name: string };

/** A stored program (never includes secrets). */
export type StoredProgram = IProgram;

/** Leaves out the settings not given (`undefined`), so they keep their defaults or stored values. */
const given = <T extends object>(settings: T): Partial<T> =>
  Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Partial<T>;

export async function createProgram(deps: CoreDeps, input: ProgramCreate): Promise<IProgram> {
  const em = deps.em;
  const program = em.create(Program, given(input) as ProgramCreate);
  checkLandingUrl(program);
  await em.flush();
  return program;
}

export async function updateProgram(
  deps: CoreDeps,
  programId: number,
  input: Partial<ProgramSettings>,
): Promise<IProgram> {
  const em = deps.em;
  const program = await em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  em.assign(program, given(input));
  checkLandingUrl(program);
  await em.flush();
  // The next read goes to the database.
  deps.caches.programs.delete(programId);
  return program;
}

/**
 * The landing URL must be a full https:// address (http:// on localhost only) on the domain: checked
 * after a change of either, so a new domain cannot leave the stored landing URL off it.
 * @throws AppError `invalid_request` (field `landing_url`).
 */
function checkLandingUrl(program: IProgram): void {
  const problem = program.landingUrl ? landingUrlProblem(program.landingUrl, program.domain ?? null) : null;
  if (problem)
    throw new AppError('invalid_request', `landing_url: ${problem}`, {
      issues: [{ field: 'landing_url', message: problem }],
    });
}

/** Every program, oldest first. */
export async function listPrograms(deps: CoreDeps): Promise<IProgram[]> {
  return deps.em.find(Program, {}, { orderBy: { id: 'asc' } });
}

/** @throws AppError `not_found`. */
export async function getProgram(deps: CoreDeps, programId: number): Promise<IProgram> {
  const program = await deps.em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  return program;
}

/** A new partner: `code` is the `aff` value of its links. */
export type PartnerCreate = { code: string; name: string; email?: string | null };

/**
 * Creates a partner; its `code` is the `aff` value of its links, unique across the service.
 * Returns it with its `partner.created` deliveries, to enqueue after commit.
 */
export async function createPartner(
  deps: CoreDeps,
  programId: number,
  input: PartnerCreate,
): Promise<{ partner: IPartner; deliveryIds: number[] }> {
  const em = deps.em;
  if (!(await em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  if (await em.count(Partner, { code: input.code }))
    throw new AppError('invalid_request', `Referral code "${input.code}" is taken`, { field: 'code' });
  // In one transaction with its `partner.created` event (outbound/), when an endpoint takes it.
  return em.transactional(async (tx) => {
    const partner = tx.create(Partner, {
      program: programId,
      code: input.code,
      name: input.name,
      email: input.email ?? null,
    });
    await tx.flush();
    return { partner, deliveryIds: await emitPartnerCreated({ ...deps, em: tx }, partner) };
  });
}
