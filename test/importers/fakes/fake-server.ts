/**
 * A plain node:http server on 127.0.0.1 (port 0) standing in for a source's API: it checks the
 * auth headers, answers one 429 (with a Retry-After) when asked to, records every request, and
 * hands the rest to the source's own router. Each source's fake (tolt.ts, …) builds on it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeAnswer = { status: number; body: unknown; headers?: Record<string, string> };

export type FakeRequest = { path: string; query: URLSearchParams; at: number };

export type FakeSourceOptions = {
  /** Whether the request carries the right credentials. */
  authorized(req: IncomingMessage): boolean;
  /** The source's answer to a request without them. */
  unauthorized: FakeAnswer;
  /** The source's 429 body (sent with `Retry-After: <retryAfterSeconds>`). */
  rateLimited: unknown;
  route(path: string, query: URLSearchParams): FakeAnswer | undefined;
};

export type FakeSource = {
  url: string;
  requests: FakeRequest[];
  /** The next request (to `path`, or any) is answered 429 once. */
  rateLimitOnce(path?: string, retryAfterSeconds?: number): void;
  close(): Promise<void>;
};

export async function startFakeSource(options: FakeSourceOptions): Promise<FakeSource> {
  const requests: FakeRequest[] = [];
  let pending429: { path?: string; retryAfter: number } | null = null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: url.searchParams, at: Date.now() });
    const send = (a: FakeAnswer) => {
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body));
    };
    if (!options.authorized(req)) return send(options.unauthorized);
    if (pending429 && (!pending429.path || pending429.path === url.pathname)) {
      const retryAfter = String(pending429.retryAfter);
      pending429 = null;
      return send({ status: 429, body: options.rateLimited, headers: { 'retry-after': retryAfter } });
    }
    send(options.route(url.pathname, url.searchParams) ?? { status: 404, body: { error: 'not found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rateLimitOnce(path, retryAfterSeconds = 1) {
      pending429 = { path, retryAfter: retryAfterSeconds };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Items after the one whose `key` is `after` (all when absent), at most `limit`, and whether more follow. */
export function cursorSlice<T extends Record<string, unknown>>(
  items: T[],
  after: string | null,
  limit: number,
  key = 'id',
): { page: T[]; hasMore: boolean } {
  const start = after ? items.findIndex((i) => i[key] === after) + 1 : 0;
  const page = items.slice(start, start + limit);
  return { page, hasMore: start + limit < items.length };
}
