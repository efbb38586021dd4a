/**
 * Tolt's v1 API as documented: `Authorization: Bearer <key>`, every list needs `program_id`,
 * pages by `limit` (here at most `pageSize`, to make the reader page) and `starting_after` (an
 * item id), answering `{ success, has_more, total_count, data }`; errors as `{ success: false,
 * error: { message, type } }`.
 */
import { cursorSlice, startFakeSource, type FakeSource } from './fake-server.ts';
import type { ToltFixture } from '../fixtures/tolt/api.ts';

const LISTS = {
  '/v1/partners': 'partners',
  '/v1/links': 'links',
  '/v1/promotion-codes': 'promotionCodes',
  '/v1/customers': 'customers',
  '/v1/commissions': 'commissions',
} as const;

export function startFakeTolt(fixture: ToltFixture, opts: { key: string; pageSize?: number }): Promise<FakeSource> {
  const pageSize = opts.pageSize ?? 2;
  return startFakeSource({
    authorized: (req) => req.headers.authorization === `Bearer ${opts.key}`,
    unauthorized: {
      status: 401,
      body: { success: false, error: { message: 'Invalid API key provided', type: 'authentication_error' } },
    },
    rateLimited: {
      success: false,
      error: { message: 'Too many requests. Please try again.', type: 'rate_limit_error' },
    },
    route(path, query) {
      const list = LISTS[path as keyof typeof LISTS];
      if (!list) return undefined;
      if (query.get('program_id') !== fixture.programId) {
        return {
          status: 400,
          body: { success: false, error: { message: 'program_id is required', type: 'invalid_request_error' } },
        };
      }
      const rows = fixture[list] as Record<string, unknown>[];
      const limit = Math.min(Number(query.get('limit') ?? 10), 100, pageSize);
      const { page, hasMore } = cursorSlice(rows, query.get('starting_after'), limit);
      return { status: 200, body: { success: true, has_more: hasMore, total_count: rows.length, data: page } };
    },
  });
}
