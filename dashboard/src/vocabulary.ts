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
