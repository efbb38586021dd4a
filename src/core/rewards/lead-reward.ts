import type { CoreDeps } from '../deps.ts';
import { Commission } from '../entities/commission.ts';
import type { ICustomer } from '../entities/customer.ts';
import { evaluateLeadReward } from './reward-rules.ts';
import { findPartnerTerms } from './partner-groups.ts';
import { findProgramSettings } from '../settings-cache.ts';
import { checkFraud } from './fraud-rules.ts';

/**
 * A reward per lead (reward-rules.ts `lead`), inside the binding's transaction: a commission on the
 * customer, once per customer (the unique `lead_customer_id`), for the partner the customer is
 * first confirmed with. A provisional (keyless browser) binding earns nothing until the merchant's
 * keyed lead confirms it: anyone can send a keyless lead. Like a sale's commission it is `pending`
 * until the hold period credits it, and fraud rules may hold it. Returns its id, or null.
 */
export async function awardLeadReward(
  deps: CoreDeps,
  customer: ICustomer,
  click: { clickedAt: Date } | null,
  now: Date,
): Promise<number | null> {
  if (!customer.partner || customer.provisional) return null;
  const program = await findProgramSettings(deps, customer.program);
  const terms = await findPartnerTerms(deps, customer.partner);
  const rules = terms.rules ?? program.rewardRules ?? null;
  const reward = evaluateLeadReward(rules, { source: terms.rules ? 'group' : 'program', groupId: terms.groupId });
  if (!reward) return null;
  const em = deps.em;
  if (await em.count(Commission, { leadCustomer: customer.id })) return null;
  const hold = await checkFraud(deps, program.fraudRules, {
    partnerId: customer.partner,
    customerId: customer.id,
    clickAt: click?.clickedAt ?? null,
    at: now,
  });
  const commission = em.create(Commission, {
    program: customer.program,
    sale: null,
    leadCustomer: customer.id,
    partner: customer.partner,
    amountCents: reward.cents,
    currency: reward.currency,
    rateBps: 0,
    reward: reward.applied,
    heldForReview: hold !== null,
    hold,
    createdAt: now,
  });
  await em.flush();
  deps.log[hold ? 'info' : 'debug'](
    { programId: customer.program, partnerId: customer.partner, customerId: customer.id, commissionId: commission.id },
    hold ? 'lead reward held by fraud rules' : 'lead reward recorded',
  );
  return commission.id;
}
