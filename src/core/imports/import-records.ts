/**
 * What an importer reads from the tool a merchant leaves (Rewardful, Tolt, FirstPromoter,
 * PartnerStack, Dub), normalised: one reader per source under `src/importers/` turns the source's
 * API pages or CSV exports into these records, and the import use-case here applies them. Amounts
 * are integers in the minor units of `currency` as the source states it (the use-case checks the
 * code against the deployment's currencies and reports a row it cannot take, never drops it).
 */

/** The tools a program can move in from. */
export const IMPORT_SOURCES = ['rewardful', 'tolt', 'firstpromoter', 'partnerstack', 'dub'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];

/** A partner (affiliate) at the source. */
export type ImportedPartner = {
  kind: 'partner';
  sourceId: string;
  name: string | null;
  /** Null when the source has none: reported as a problem, the partner is not created. */
  email: string | null;
  /** Referral codes or link keys the partner's links carry (`?via=`, `?ref=`, a short link's key). */
  codes: string[];
  /** The source's campaign or group, brought as a partner group of the same name. */
  group: string | null;
  /** Where the source paid the partner (a PayPal email, for one). */
  payoutEmail: string | null;
  createdAt: string | null;
};

/** A customer the partner referred, bound so the payment provider's later webhooks attribute. */
export type ImportedCustomer = {
  kind: 'customer';
  sourceId: string;
  partnerSourceId: string;
  /** The payment provider's customer id (Stripe `cus_…`, Paddle `ctm_…`), when the source knows it. */
  providerCustomerId: string | null;
  /** The merchant's own customer id, when the source keeps one (becomes the `customer_key`). */
  customerKey: string | null;
  email: string | null;
  createdAt: string | null;
};

/** A commission at the source, on a sale (or a flat reward with no sale amount). */
export type ImportedCommission = {
  kind: 'commission';
  sourceId: string;
  partnerSourceId: string;
  customerSourceId: string | null;
  /** The sale's id at the source or its payment provider (an invoice or charge id). */
  saleSourceId: string | null;
  /** Upper-case as far as the reader can tell; checked by the use-case. */
  currency: string;
  saleAmountMinor: number | null;
  amountMinor: number;
  /** pending: not yet due; due: approved and unpaid; paid; voided: refunded or rejected. */
  status: 'pending' | 'due' | 'paid' | 'voided';
  createdAt: string;
};

/** An amount the source paid a partner. */
export type ImportedPayout = {
  kind: 'payout';
  sourceId: string;
  partnerSourceId: string;
  currency: string;
  amountMinor: number;
  paidAt: string;
};

/** A source row the reader could not turn into a record: reported in the import's report. */
export type ImportProblem = {
  kind: 'problem';
  /** What the row was (`partner`, `customer`, `commission`, `payout`). */
  of: 'partner' | 'customer' | 'commission' | 'payout';
  sourceId: string | null;
  reason: string;
};

export type ImportRecord = ImportedPartner | ImportedCustomer | ImportedCommission | ImportedPayout | ImportProblem;

/** What the source says a partner is owed (due and unpaid), to compare with the balance after import. */
export type SourceBalance = { partnerSourceId: string; currency: string; amountMinor: number };

/**
 * One source, read: records in dependency order (every partner before the customers, commissions
 * and payouts naming it). Reading again yields the same records, so an interrupted import restarts
 * from the beginning and skips what it already applied (rows keep their source ids).
 */
export interface ImportReader {
  source: ImportSourceName;
  records(): AsyncIterable<ImportRecord>;
  /** The source's own balances, when it states them; otherwise computed from the commissions. */
  balances(): Promise<SourceBalance[] | null>;
}
