/** The outbound event types a merchant's endpoint may subscribe to (README "Outbound events"). */
export const OUTBOUND_EVENT_TYPES = [
  'lead.created',
  'sale.created',
  'commission.created',
  'commission.updated',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'partner.created',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** What changed in a `commission.updated` event (`data.change`). */
export type CommissionChange =
  | 'approved'
  | 'refunded'
  | 'reversed'
  | 'released'
  | 'rejected'
  | 'paid'
  /** Its payout failed: payable again (status `approved`). */
  | 'payout_failed';

/** An event before it is stored: its type and `data` (wire names: snake_case, minor units). */
export type OutboundEvent = { type: OutboundEventType; data: Record<string, unknown> };
