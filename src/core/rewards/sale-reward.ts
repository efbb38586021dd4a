import type { CoreDeps } from '../deps.ts';
import type { IProgram } from '../entities/program.ts';
import type { Currency } from '../shared/vocabulary.ts';
import { evaluateReward, renewalEarns } from './reward-rules.ts';
import { findPartnerTerms, tierValue } from './partner-groups.ts';
import { Sale } from '../entities/sale.ts';

/**
 * The commission on an attributed sale under the partner's reward terms (their group's rules, else
 * the program's; reward-rules.ts), or null when a renewal (`firstSaleAt`: the subscription's first
 * sale) falls outside the recurring policy of those terms. A sale that is no renewal is its
 * customer's first payment when the customer (if known) has no earlier attributed sale in the
 * program; asked only when the terms have a first-sale reward.
 */
export async function computeSaleReward(
  deps: CoreDeps,
  program: IProgram,
  sale: {
    partnerId: number;
    customerId: number | null;
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
  const firstSale =
    !!rules?.first_sale &&
    sale.firstSaleAt === null &&
    (sale.customerId === null ||
      (await deps.em.findOne(
        Sale,
        { program: program.id, customer: sale.customerId, partner: { $ne: null } },
        { fields: ['id'] },
      )) === null);
  return evaluateReward(rules, { source: terms.rules ? 'group' : 'program', groupId: terms.groupId }, program, {
    amountCents: sale.amountCents,
    currency: sale.currency,
    productId: sale.productId,
    tierValue: tier,
    firstSale,
  });
}
