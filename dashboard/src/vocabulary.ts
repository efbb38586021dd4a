// The server's closed value sets that the pages offer as choices, from the module the server
// validates with (src/core/vocabulary.ts: plain constants, no server-only import), bundled here.

export {
  COMMISSION_STATUSES,
  CURRENCIES,
  PAYOUT_METHOD_KINDS,
  PAYOUT_RAILS,
  SALE_PROVIDERS,
  WEBHOOK_PROVIDERS,
} from '../../src/core/shared/vocabulary.ts';
export type {
  Currency,
  PayoutMethodKind,
  PayoutRail,
  PayoutSkipReason,
  SaleProvider,
} from '../../src/core/shared/vocabulary.ts';

/**
 * A commission's status as the pages show it (the API's values unchanged): `refunded` is a partial
 * refund (part of the sale refunded, the commission reduced); `reversed` all of it taken back.
 */
export const COMMISSION_STATUS_LABELS: Record<string, string> = {
  pending: 'pending',
  approved: 'approved',
  paid: 'paid',
  refunded: 'partly refunded',
  reversed: 'reversed (refunded in full)',
};
export const commissionStatusLabel = (status: string): string => COMMISSION_STATUS_LABELS[status] ?? status;
