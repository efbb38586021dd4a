/**
 * The HTTP side every source reader shares: a JSON GET against the source's API with its auth
 * headers, a 429 answered by waiting as long as the source's `Retry-After` says (seconds or an
 * HTTP date, capped) and asking again, and errors that say which source refused what and why
 * (the key itself is never part of a message). Global fetch unless given another client.
 */
import type { SourceFetch } from './reader-options.ts';

/** A source refused or failed a request: the message names the source, the path and the status. */
export class ImportSourceError extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.name = 'ImportSourceError';
    this.status = status;
  }
}

export type SourceHttpOptions = {
  /** The HTTP client (reader-options.ts; default: global fetch). */
  fetch?: SourceFetch | undefined;
  /** The source's name for messages (`Tolt`, `Dub`). */
  label: string;
  baseUrl: string;
  headers: Record<string, string>;
  /** How many 429s in a row one request waits out before giving up (default 5). */
  maxRetries?: number;
  /** The longest single wait, whatever Retry-After says (default 60 s). */
  maxWaitMs?: number;
};

export type Query = Record<string, string | number | undefined>;

export type SourceHttp = {
  /** GET `path` (below the base URL) with `query`; the parsed JSON body. */
  get(path: string, query?: Query): Promise<unknown>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds to wait from a Retry-After header: delta-seconds or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 1000;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - now);
}

/** What the source said about a failed request, from its JSON error body (shapes differ per source). */
function describeError(body: string): string {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const error = json.error as Record<string, unknown> | string | undefined;
    const fromError = typeof error === 'string' ? error : (error?.message as string | undefined);
    const message = fromError ?? (json.message as string | undefined) ?? (json.detail as string | undefined);
    if (typeof message === 'string' && message) return message.slice(0, 200);
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.trim().slice(0, 200) || 'no details given';
}

export function createSourceHttp(options: SourceHttpOptions): SourceHttp {
  const base = options.baseUrl.replace(/\/+$/, '');
  const maxRetries = options.maxRetries ?? 5;
  const send: SourceFetch = options.fetch ?? fetch;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  return {
    async get(path, query = {}) {
      const url = new URL(base + path);
      for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
      const where = `${options.label} GET ${url.pathname}`;
      for (let attempt = 0; ; attempt++) {
        let res: Response;
        try {
          res = await send(url, { headers: { accept: 'application/json', ...options.headers } });
        } catch (err) {
          throw new ImportSourceError(`${where}: could not reach ${url.origin} (${(err as Error).message})`, null);
        }
        if (res.status === 429 && attempt < maxRetries) {
          await res.body?.cancel();
          await sleep(Math.min(retryAfterMs(res.headers.get('retry-after')), maxWaitMs));
          continue;
        }
        const text = await res.text();
        if (res.status === 401 || res.status === 403) {
          throw new ImportSourceError(
            `${where}: ${options.label} refused the API key (${res.status}: ${describeError(text)}); check the key and its permissions`,
            res.status,
          );
        }
        if (res.status === 429) {
          throw new ImportSourceError(`${where}: still rate-limited after ${maxRetries} waits (429)`, 429);
        }
        if (!res.ok) throw new ImportSourceError(`${where}: ${res.status} ${describeError(text)}`, res.status);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new ImportSourceError(`${where}: the answer is not JSON`, res.status);
        }
      }
    },
  };
}

/**
 * Every item of a cursor-paged list (`limit` + `starting_after`, the id of the last item read):
 * `read` takes one answer to its items and whether more follow.
 */
export async function readCursorPages<T extends { id?: unknown }>(
  http: SourceHttp,
  path: string,
  query: Query,
  read: (body: unknown) => { items: T[]; hasMore: boolean; cursor?: (last: T) => string },
  limit = 100,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = read(await http.get(path, { ...query, limit, starting_after: after }));
    all.push(...page.items);
    const last = page.items.at(-1);
    if (!page.hasMore || last === undefined) return all;
    after = page.cursor ? page.cursor(last) : String(last.id);
  }
}

/**
 * Every item of a numbered-page list (`page` from 1, a page size): stops at the first empty page,
 * so a source that serves fewer than asked per page is still read to the end.
 */
export async function readNumberedPages<T>(
  http: SourceHttp,
  path: string,
  query: Query,
  read: (body: unknown) => T[],
  names: { page: string; size: string },
  size = 100,
): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const items = read(await http.get(path, { ...query, [names.page]: page, [names.size]: size }));
    if (items.length === 0) return all;
    all.push(...items);
  }
}
