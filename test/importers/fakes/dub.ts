/**
 * Dub's API as documented: `Authorization: Bearer <key>`, lists paged by `page` (from 1) and
 * `pageSize` (here at most `pageSize`, so the reader pages) answering a plain array; errors as
 * `{ error: { code, message, doc_url } }`; a 429 with Retry-After.
 */
import { startFakeSource, type FakeSource } from './fake-server.ts';
import type { DubFixture } from '../fixtures/dub/api.ts';

const LISTS = {
  '/partners': 'partners',
  '/customers': 'customers',
  '/commissions': 'commissions',
  '/payouts': 'payouts',
} as const;

const error = (code: string, message: string) => ({
  error: { code, message, doc_url: `https://dub.co/docs/api-reference/errors#${code}` },
});

export function startFakeDub(fixture: DubFixture, opts: { key: string; pageSize?: number }): Promise<FakeSource> {
  const pageSize = opts.pageSize ?? 3;
  return startFakeSource({
    authorized: (req) => req.headers.authorization === `Bearer ${opts.key}`,
    unauthorized: { status: 401, body: error('unauthorized', 'Unauthorized: Invalid API key.') },
    rateLimited: error('rate_limit_exceeded', 'Too many requests.'),
    route(path, query) {
      const list = LISTS[path as keyof typeof LISTS];
      if (!list) return undefined;
      let rows = fixture[list] as Record<string, unknown>[];
      if (list === 'customers' && query.get('includeExpandedFields') !== 'true') {
        rows = rows.map(({ link: _link, partner: _partner, discount: _discount, ...rest }) => rest);
      }
      const size = Math.min(Number(query.get('pageSize') ?? 50), 100, pageSize);
      const page = Number(query.get('page') ?? 1);
      return { status: 200, body: rows.slice((page - 1) * size, page * size) };
    },
  });
}
