/**
 * How a reader makes its HTTP requests: global fetch unless given one. The admin API gives one
 * whose every connection goes to an address the outbound URL guard checked (src/egress).
 */
export type SourceFetch = (
  url: URL,
  init: { headers: Record<string, string>; signal?: AbortSignal },
) => Promise<Response>;

/** What a source reader is given: the merchant's API key at the source, its API's address, or a CSV export. */
export type ReaderOptions = {
  /** The source's API secret (never stored or logged). */
  apiKey?: string;
  /** The source API's base URL (default: its public one; tests serve a fake). */
  baseUrl?: string;
  /** A CSV export's files, by what they hold, when the source documents one. */
  csv?: Record<string, string>;
  /** The HTTP client (default: global fetch). */
  fetch?: SourceFetch;
};
