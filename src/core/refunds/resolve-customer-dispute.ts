import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Click } from '../entities/click.ts';
import { Customer } from '../entities/customer.ts';
import { Commission } from '../entities/commission.ts';
import { Sale } from '../entities/sale.ts';
import { AttributionConflict } from '../entities/attribution-conflict.ts';

export type DisputeResolution = {
  customerId: number;
  clickId: string;
  partnerId: number;
  releasedCommissionIds: number[];
  reversedCommissionIds: number[];
};

/**
 * The advertiser's decision on a disputed customer: it is bound to `clickId` (a click of this
 * program), its conflicts are marked resolved, and each commission held for review is released to
 * automatic approval when it belongs to that click's partner, else reversed (it was never credited,
 * so no balance moves).
 * @throws AppError `not_found` (customer or click not in this program), `invalid_request` (not disputed).
 */
export async function resolveCustomerDispute(
  deps: CoreDeps,
  programId: number,
  customerId: number,
  clickId: string,
): Promise<DisputeResolution> {
  return deps.em.transactional(async (em) => {
    const customer = await em.findOne(Customer, { id: customerId, program: programId });
    if (!customer) throw new AppError('not_found', 'No such customer in this program');
    if (!customer.disputedAt) throw new AppError('invalid_request', 'This customer is not disputed');
    const click = await em.findOne(Click, { id: clickId, program: programId });
    if (!click) throw new AppError('not_found', 'No such click in this program', { field: 'click_id' });
    const now = deps.clock();
    customer.click = click.id;
    customer.partner = click.partner;
    customer.provisional = false;
    customer.disputedAt = null;
    await em.nativeUpdate(
      AttributionConflict,
      { program: programId, customerId, resolvedAt: null },
      { resolvedAt: now },
    );
    const sales = await em.find(Sale, { program: programId, customer: customerId }, { fields: ['id'] });
    const held = await em.find(Commission, {
      program: programId,
      sale: { $in: sales.map((s) => s.id) },
      heldForReview: true,
      // A commission also held by fraud rules waits for its own decision (review-held-commission.ts).
      hold: null,
    });
    const released: number[] = [];
    const reversed: number[] = [];
    for (const c of held) {
      c.heldForReview = false;
      if (c.partner === click.partner || c.creditedAt || c.status === 'reversed') {
        released.push(c.id);
      } else {
        c.status = 'reversed';
        c.reversedCents = c.amountCents;
        c.reason = 'attribution dispute resolved for another partner';
        reversed.push(c.id);
      }
    }
    await em.flush();
    deps.log.info({ programId, customerId, clickId, released, reversed }, 'customer dispute resolved');
    return {
      customerId,
      clickId: click.id,
      partnerId: click.partner,
      releasedCommissionIds: released,
      reversedCommissionIds: reversed,
    };
  });
}
