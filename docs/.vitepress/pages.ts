/**
 * The pages of the docs site's sidebar, by file name in docs/ (config.ts). Every ```sh block of a
 * guide page is run by a test, or marked `<!-- not run by a test: why -->` (test/docs/pages.test.ts).
 */
/** The guide: read in this order by someone setting the service up. */
export const GUIDE = [
  'first-program',
  'configuration',
  'deployment',
  'operations',
  'security',
  'cli',
  'dashboard',
  'moving-from-rewardful',
];

/** The reference: looked up. Slots for the pages of other topics go here (link text from their heading). */
export const REFERENCE = [
  'tracking-api',
  'api',
  'providers',
  'embedding',
  'commissions',
  'outbound-events',
  'exports',
  'balances-and-payouts',
  'payouts',
  'rules',
  'performance',
  'moving-from-tolt',
  'moving-from-firstpromoter',
  'moving-from-partnerstack',
  'moving-from-dub',
  'architecture',
];
