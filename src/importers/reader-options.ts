/** What a source reader is given: the merchant's API key at the source, its API's address, or a CSV export. */
export type ReaderOptions = {
  /** The source's API secret (never stored or logged). */
  apiKey?: string;
  /** The source API's base URL (default: its public one; tests serve a fake). */
  baseUrl?: string;
  /** A CSV export's files, by what they hold, when the source documents one. */
  csv?: Record<string, string>;
};
