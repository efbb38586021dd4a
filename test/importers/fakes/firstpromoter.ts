/**
 * FirstPromoter's admin API v2 as documented: `Authorization: Bearer <key>` and `Account-ID`,
 * lists paged by `page` (from 1) and `per_page` (here at most `pageSize`, so the reader pages),
 * answering a plain JSON array; a wrong key is a 401 with an error message.
 */
import { startFakeSource, type FakeSource } from './fake-server.ts';
import type { FirstPromoterFixture } from '../fixtures/firstpromoter/api.ts';

const LISTS = {
  '/promoters': 'promoters',
  '/referrals': 'referrals',
  '/commissions': 'commissions',
  '/payouts': 'payouts',
} as const;

export function startFakeFirstPromoter(
  fixture: FirstPromoterFixture,
  opts: { key: string; pageSize?: number },
): Promise<FakeSource> {
  const pageSize = opts.pageSize ?? 3;
  return startFakeSource({
    authorized: (req) =>
      req.headers.authorization === `Bearer ${opts.key}` && req.headers['account-id'] === fixture.accountId,
    unauthorized: { status: 401, body: { error: 'Unauthenticated or missing bearer token' } },
    rateLimited: { error: 'Too Many Requests' },
    route(path, query) {
      const list = LISTS[path as keyof typeof LISTS];
      if (!list) return undefined;
      const size = Math.min(Number(query.get('per_page') ?? 20), 100, pageSize);
      const page = Number(query.get('page') ?? 1);
      const rows = fixture[list] as unknown[];
      return { status: 200, body: rows.slice((page - 1) * size, page * size) };
    },
  });
}
