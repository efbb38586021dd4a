import type { PayoutSkipReason } from './vocabulary.ts';

/** The short name of each reason a payout run passes a partner by (its sentence comes with it). */
export const SKIP_LABELS: Record<PayoutSkipReason, string> = {
  negative_balance: 'Negative balance',
  held: 'Held',
  no_payout_details: 'No payout details',
  method_not_in_run: 'Details for another rail',
  below_minimum: 'Below the minimum',
};
