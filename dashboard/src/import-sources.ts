// The tools a program can be imported from (the Import page), in the server's own list
// (IMPORT_SOURCES), each with the words the page uses: its name, the API key it needs and how to
// write it (the readers under src/importers/ and docs/moving-from-*.md say the same), and an
// example of the key's shape.
import { IMPORT_SOURCES, type ImportSourceName } from '../../src/core/imports/import-records.ts';

export type ImportSourceHelp = {
  label: string;
  /** What to paste, in plain words. */
  key: string;
  /** The key's shape, with made-up values. */
  example: string;
  /** The docs page about moving from the tool. */
  doc: string;
};

export const IMPORT_SOURCE_HELP: Record<ImportSourceName, ImportSourceHelp> = {
  rewardful: {
    label: 'Rewardful',
    key: 'The API secret of your Rewardful account, as it is (Rewardful: Company settings).',
    example: 'a1b2c3d4e5f6…',
    doc: 'moving-from-rewardful',
  },
  tolt: {
    label: 'Tolt',
    key: 'Your Tolt program id, a colon, then a Tolt API key (Tolt: Settings → Integrations). Tolt needs to be told which program to read.',
    example: 'prg_YourProgramId:your-tolt-api-key',
    doc: 'moving-from-tolt',
  },
  firstpromoter: {
    label: 'FirstPromoter',
    key: 'Three parts joined by colons: your FirstPromoter account id, an API key (both under Settings → Integrations), then the three-letter code of your account’s currency, because FirstPromoter does not say it.',
    example: '123456:your-firstpromoter-api-key:USD',
    doc: 'moving-from-firstpromoter',
  },
  partnerstack: {
    label: 'PartnerStack',
    key: 'Your PartnerStack public key, a colon, then your secret key (PartnerStack: Settings → Integrations → API).',
    example: 'your-public-key:your-secret-key',
    doc: 'moving-from-partnerstack',
  },
  dub: {
    label: 'Dub',
    key: 'An API key of the Dub workspace that runs the program (Dub: Settings → API Keys), allowed to read partners, customers, commissions and payouts.',
    example: 'dub_your-api-key',
    doc: 'moving-from-dub',
  },
};

export const IMPORT_SOURCE_NAMES: readonly ImportSourceName[] = IMPORT_SOURCES;
export type { ImportSourceName };

/** What each kind of record is called on the page. */
export const IMPORT_KIND_LABELS: Record<string, string> = {
  partner: 'Partners',
  customer: 'Customers',
  commission: 'Commissions',
  payout: 'Payouts',
};

export const sourceLabel = (source: string): string => IMPORT_SOURCE_HELP[source as ImportSourceName]?.label ?? source;
