import type { CoreDeps } from '../deps.ts';
import type { IProgram } from '../entities/program.ts';
import type { Currency } from '../shared/vocabulary.ts';
import { evaluateReward, renewalEarns } from './reward-rules.ts';
import { findPartnerTerms, tierValue } from './partner-groups.ts';

/**
 * The commission on an attributed sale under the partner's reward terms (their group's rules, else
 * the program's; reward-rules.ts), or null when a renewal (`firstSaleAt`: the subscription's first
 * sale) falls outside the recurring policy of those terms.
 */
export async function computeSaleReward(
  deps: CoreDeps,
  program: IProgram,
  sale: {
    partnerId: number;
    firstSaleAt: Date | null;
    productId: string | null;
    amountCents: number;
    currency: Currency;
    now: Date;
  },
) {
  const terms = await findPartnerTerms(deps, sale.partnerId);
  const rules = terms.rules ?? program.rewardRules ?? null;
  if (sale.firstSaleAt && !renewalEarns(rules, program, sale.firstSaleAt, sale.now)) return null;
  const tiers = rules?.tiers;
  const tier = tiers
    ? await tierValue(deps.em, {
        programId: program.id,
        partnerId: sale.partnerId,
        metric: tiers.metric,
        period: tiers.period,
        currency: sale.currency,
        amountCents: sale.amountCents,
        now: sale.now,
      })
    : 0;
  return evaluateReward(rules, { source: terms.rules ? 'group' : 'program', groupId: terms.groupId }, program, {
    amountCents: sale.amountCents,
    currency: sale.currency,
    productId: sale.productId,
    tierValue: tier,
  });
}
