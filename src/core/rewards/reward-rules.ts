/**
 * What a partner earns on a sale: a program's (or a partner group's) reward rules, and their pure
 * evaluation (their stored shape: entities/program-rules.ts). Pure: the dashboard's type check
 * reads this file.
 *
 * Evaluation, first that applies: on a customer's first payment, the rules' first-sale reward; the rules' product override for the sale's `product_id`; the
 * tier step the partner's results reach; the rules' sale reward; the program's own rates
 * (`product_rates_bps`, then `commission_rate_bps`). A flat reward applies only when it names an
 * amount in the sale's currency. A commission is integer minor units of the sale's currency:
 * a percentage is `amount × bps / 10 000` rounded half-up; a flat amount is capped at the sale's
 * amount, so a commission is never negative and never more than the sale.
 */
import type { Currency, RecurringPolicy } from '../shared/vocabulary.ts';
import { calculateCommission } from '../shared/money.ts';
import type { Reward, RewardApplied, RewardRules } from '../entities/program-rules.ts';

/** The program's own rates, the last rule of every evaluation. */
export type BaseRates = { commissionRateBps: number; productRatesBps?: Record<string, number> | null };

/**
 * The sale an evaluation is for. `tierValue`: the partner's results (only read when the rules have
 * tiers). `firstSale`: the customer's first payment (only read when the rules have a first-sale reward).
 */
export type RewardInput = {
  amountCents: number;
  currency: Currency;
  productId: string | null;
  tierValue: number;
  firstSale?: boolean;
};

/** The commission (minor units), the rate to store (`bps`, 0 for a flat reward) and what applied. */
export function evaluateReward(
  rules: RewardRules | null,
  terms: { source: 'program' | 'group'; groupId: number | null },
  base: BaseRates,
  sale: RewardInput,
): { cents: number; rateBps: number; applied: RewardApplied } {
  const candidates: Array<{ reward: Reward; rule: RewardApplied['rule']; tier?: RewardApplied['tier'] }> = [];
  if (sale.firstSale && rules?.first_sale) candidates.push({ reward: rules.first_sale, rule: 'first_sale' });
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
