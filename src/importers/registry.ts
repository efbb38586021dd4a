import type { ImportReader, ImportSourceName } from '../core/imports/import-records.ts';
import type { ReaderOptions } from './reader-options.ts';
import { createRewardfulReader } from './rewardful/rewardful-reader.ts';
import { createToltReader } from './tolt/tolt-reader.ts';
import { createFirstPromoterReader } from './firstpromoter/firstpromoter-reader.ts';
import { createPartnerStackReader } from './partnerstack/partnerstack-reader.ts';
import { createDubReader } from './dub/dub-reader.ts';

/** The sources an import can read, by name (`import:<source>` on the CLI, `source` in the API). */
export const READERS: Partial<Record<ImportSourceName, (options: ReaderOptions) => ImportReader>> = {
  rewardful: createRewardfulReader,
  tolt: createToltReader,
  firstpromoter: createFirstPromoterReader,
  partnerstack: createPartnerStackReader,
  dub: createDubReader,
};

/** The names of the sources a reader exists for. */
export const readableSources = (): ImportSourceName[] => Object.keys(READERS) as ImportSourceName[];

/** A reader of `source`. @throws Error when no reader exists for it. */
export function createReader(source: string, options: ReaderOptions): ImportReader {
  const make = READERS[source as ImportSourceName];
  if (!make) throw new Error(`No importer for "${source}"; known: ${readableSources().join(', ')}`);
  return make(options);
}
