import type { ImportReader, ImportSourceName } from '../core/imports/import-records.ts';
import type { ReaderOptions } from './reader-options.ts';
import { createRewardfulReader } from './rewardful/rewardful-reader.ts';

/** The sources an import can read, by name (`import:<source>` on the CLI, `source` in the API). */
export const READERS: Partial<Record<ImportSourceName, (options: ReaderOptions) => ImportReader>> = {
  rewardful: createRewardfulReader,
};

/** The names of the sources a reader exists for. */
export const readableSources = (): ImportSourceName[] => Object.keys(READERS) as ImportSourceName[];

/** A reader of `source`. @throws Error when no reader exists for it. */
export function createReader(source: string, options: ReaderOptions): ImportReader {
  const make = READERS[source as ImportSourceName];
  if (!make) throw new Error(`No importer for "${source}"; known: ${readableSources().join(', ')}`);
  return make(options);
}
