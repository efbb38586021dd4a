import type { OutboundEventType } from '../shared/vocabulary.ts';

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
