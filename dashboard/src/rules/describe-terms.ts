// Reward rules in words, for a partner (portal) or a merchant (groups table): what a sale earns,
// the first payment, renewals, products, tiers and signups. Amounts as money, rates in percent.
import type { Reward, RewardRules } from '../../../src/core/entities/program-rules.ts';
import type { RecurringPolicy } from '../../../src/core/shared/vocabulary.ts';
import { money } from '../api.ts';

/** The program's own terms, which rules without a sale reward or renewals setting fall back on. */
export type BaseTerms = { commissionRateBps: number; recurringPolicy: RecurringPolicy; recurringMonths: number | null };

export const percent = (bps: number): string => `${Number((bps / 100).toFixed(2))} %`;

/** "30 % of" or "50.00 USD on" (each currency named, "or" between them). */
function earns(r: Reward): string {
  if (r.type === 'percent') return `${percent(r.bps)} of`;
  const amounts = Object.entries(r.amounts).map(([c, cents]) => money(cents, c));
  return `${amounts.join(' or ')} on`;
}

/** A tier's starting point: "10 sales" or "1,000.00 in revenue". */
const threshold = (metric: 'sales' | 'revenue', from: number): string =>
  metric === 'sales' ? `${from} sales` : `${money(from, 'USD').replace(' USD', '')} in revenue`;

/** The terms as sentences, most important first. */
export function describeTerms(rules: RewardRules | null, base: BaseTerms): string[] {
  const out: string[] = [];
  const sale = rules?.sale ?? { type: 'percent' as const, bps: base.commissionRateBps };
  if (rules?.first_sale)
    out.push(`${earns(rules.first_sale)} each customer's first payment, then ${earns(sale)} each later payment.`);
  else out.push(`${earns(sale)} each sale.`.replace(/^./, (c) => c.toUpperCase()));
  const policy = rules?.recurring?.policy ?? base.recurringPolicy;
  const months = (rules?.recurring ? rules.recurring.months : base.recurringMonths) ?? 12;
  out.push(
    policy === 'lifetime'
      ? 'Renewals earn for as long as the customer keeps paying.'
      : policy === 'months'
        ? `Renewals earn for ${months} months after the first payment.`
        : 'Renewals earn nothing: only the first payment of a subscription counts.',
  );
  for (const [id, r] of Object.entries(rules?.products ?? {})) out.push(`Product ${id}: ${earns(r)} each sale.`);
  const tiers = rules?.tiers;
  if (tiers) {
    const period = tiers.period === 'calendar_month' ? 'in the calendar month' : 'in the last 30 days';
    for (const s of tiers.steps)
      out.push(`From ${threshold(tiers.metric, s.from)} ${period}: ${earns(s.reward)} each sale.`);
  }
  if (rules?.lead) out.push(`${money(rules.lead.cents, rules.lead.currency)} for each signup you refer.`);
  return out.map((s) => s.replace(/^./, (c) => c.toUpperCase()));
}

/** Where a partner stands on their tiers: the tier reached (its reward) and the next threshold. */
export function tierStanding(tiers: NonNullable<RewardRules['tiers']>, value: number): string {
  const reached = tiers.steps.findLastIndex((s) => value >= s.from);
  const next = tiers.steps[reached + 1];
  const now =
    reached < 0
      ? 'You are below the first tier'
      : `You are in tier ${reached + 1} of ${tiers.steps.length} (${earns(tiers.steps[reached]!.reward)} each sale)`;
  return next ? `${now}; the next tier starts at ${threshold(tiers.metric, next.from)}.` : `${now}: the top tier.`;
}
