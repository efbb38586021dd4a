import type { DisputeResolution } from '../../core/refunds/resolve-customer-dispute.ts';

/** The settled dispute: the customer's click and partner, and the held commissions it decided. */
export const disputeResolutionToWire = (r: DisputeResolution) => ({
  customer_id: r.customerId,
  click_id: r.clickId,
  partner_id: r.partnerId,
  released_commission_ids: r.releasedCommissionIds,
  reversed_commission_ids: r.reversedCommissionIds,
});
