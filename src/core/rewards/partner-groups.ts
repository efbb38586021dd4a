import { DAY_MS, type CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { isUniqueViolation } from '../db/data-error.ts';
import { Partner, type IPartner } from '../entities/partner.ts';
import { PartnerGroup, type IPartnerGroup } from '../entities/partner-group.ts';
import { Program } from '../entities/program.ts';
import type { RewardRules, TierMetric, TierPeriod } from '../entities/program-rules.ts';
import { cents, compileStatement, exactText } from '../db/sql.ts';
import type { PartnerTerms } from '../ports.ts';

/** Every change to groups or memberships: this process's cached terms are read again. */
function changed(deps: CoreDeps): void {
  deps.caches.rewardTerms.clear();
}

/** @throws AppError `not_found` (program), `invalid_request` (the name is taken in the program). */
export async function createPartnerGroup(
  deps: CoreDeps,
  programId: number,
  input: { name: string; rewardRules: RewardRules | null },
): Promise<IPartnerGroup> {
  const em = deps.em;
  if (!(await em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const group = em.create(PartnerGroup, { program: programId, name: input.name, rewardRules: input.rewardRules });
  await flushNamed(em, input.name);
  changed(deps);
  return group;
}

/** Renames a group or replaces its rules; commissions already recorded keep theirs. @throws AppError `not_found`, `invalid_request`. */
export async function updatePartnerGroup(
  deps: CoreDeps,
  programId: number,
  groupId: number,
  input: { name?: string; rewardRules?: RewardRules | null },
): Promise<IPartnerGroup> {
  const em = deps.em;
  const group = await em.findOne(PartnerGroup, { id: groupId, program: programId });
  if (!group) throw new AppError('not_found', 'No such partner group in this program');
  if (input.name !== undefined) group.name = input.name;
  if (input.rewardRules !== undefined) group.rewardRules = input.rewardRules;
  await flushNamed(em, group.name);
  changed(deps);
  return group;
}

async function flushNamed(em: CoreDeps['em'], name: string): Promise<void> {
  try {
    await em.flush();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new AppError('invalid_request', `A partner group named "${name}" exists in this program`, { field: 'name' });
  }
}

/** Puts a partner in a group of its program (`null`: none, the program's rules). @throws AppError `not_found`. */
export async function assignPartnerGroup(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  groupId: number | null,
): Promise<IPartner> {
  const em = deps.em;
  const partner = await em.findOne(Partner, { id: partnerId, program: programId });
  if (!partner) throw new AppError('not_found', 'No such partner in this program');
  if (groupId !== null && !(await em.count(PartnerGroup, { id: groupId, program: programId })))
    throw new AppError('not_found', 'No such partner group in this program');
  partner.group = groupId;
  await em.flush();
  changed(deps);
  return partner;
}

const TERMS = compileStatement((db, p: { partnerId: number }) =>
  db
    .selectFrom('partner as p')
    .leftJoin('partner_group as g', 'g.id', 'p.group_id')
    .select(['p.group_id', 'g.reward_rules'])
    .where('p.id', '=', p.partnerId),
);

/**
 * The partner's reward terms, read at most once per `SETTINGS_CACHE_MS` in this process (the
 * bound of every setting, settings-cache.ts).
 */
export async function findPartnerTerms(deps: CoreDeps, partnerId: number): Promise<PartnerTerms> {
  const hit = deps.caches.rewardTerms.get(partnerId);
  if (hit) return hit;
  const [row] = await TERMS.run(deps.em, { partnerId });
  const terms: PartnerTerms = {
    groupId: row?.group_id ?? null,
    rules: (row?.reward_rules as RewardRules | null | undefined) ?? null,
  };
  deps.caches.rewardTerms.set(partnerId, terms);
  return terms;
}

/** Where a tier period starts: the calendar month (UTC) of `now`, or 30 days before it. */
export function periodStart(period: TierPeriod, now: Date): Date {
  if (period === 'last_30_days') return new Date(now.getTime() - 30 * DAY_MS);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

const RESULTS = compileStatement((db, p: { programId: number; partnerId: number; since: Date }) =>
  db
    .selectFrom('sale')
    .select((eb) => [
      'currency',
      eb.fn.countAll<string>().as('sales'),
      exactText(eb.fn.sum('amount_cents')).as('revenue'),
    ])
    .where('partner_id', '=', p.partnerId)
    .where('program_id', '=', p.programId)
    .where('received_at', '>=', p.since)
    .groupBy('currency'),
);

/** A partner's sales in the program since `since`: their count, and their amounts per currency. */
export async function partnerResults(
  em: CoreDeps['em'],
  programId: number,
  partnerId: number,
  since: Date,
): Promise<{ sales: number; revenue: Array<{ currency: string; cents: number }> }> {
  const rows = await RESULTS.run(em, { programId, partnerId, since });
  return {
    sales: rows.reduce((n, r) => n + Number(r.sales), 0),
    revenue: rows.map((r) => ({ currency: r.currency, cents: cents(r.revenue) })),
  };
}

/**
 * The partner's results in the period before a sale, with the sale itself: `sales` counts the
 * partner's live sales in the program; `revenue` sums their amounts in the sale's currency.
 */
export async function tierValue(
  em: CoreDeps['em'],
  q: {
    programId: number;
    partnerId: number;
    metric: TierMetric;
    period: TierPeriod;
    currency: string;
    amountCents: number;
    now: Date;
  },
): Promise<number> {
  const r = await partnerResults(em, q.programId, q.partnerId, periodStart(q.period, q.now));
  if (q.metric === 'sales') return r.sales + 1;
  return (r.revenue.find((x) => x.currency === q.currency)?.cents ?? 0) + q.amountCents;
}
