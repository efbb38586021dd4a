/**
 * PartnerStack's vendor API v2 as documented: HTTP Basic with the public and secret keys, every
 * answer `{ data, message, status }`, lists paged by `limit` (here at most `pageSize`, so the
 * reader pages) and `starting_after` (an item's `key`), `data.has_more` saying whether more follow.
 */
import { cursorSlice, startFakeSource, type FakeSource } from './fake-server.ts';
import type { PartnerStackFixture } from '../fixtures/partnerstack/api.ts';

const LISTS = {
  '/partnerships': 'partnerships',
  '/customers': 'customers',
  '/transactions': 'transactions',
  '/rewards': 'rewards',
} as const;

export function startFakePartnerStack(
  fixture: PartnerStackFixture,
  opts: { publicKey: string; secretKey: string; pageSize?: number },
): Promise<FakeSource> {
  const pageSize = opts.pageSize ?? 2;
  const basic = `Basic ${Buffer.from(`${opts.publicKey}:${opts.secretKey}`).toString('base64')}`;
  return startFakeSource({
    authorized: (req) => req.headers.authorization === basic,
    unauthorized: { status: 401, body: { message: 'Unauthorized', status: 401 } },
    rateLimited: { message: 'Too Many Requests', status: 429 },
    route(path, query) {
      const list = LISTS[path as keyof typeof LISTS];
      if (!list) return undefined;
      const rows = fixture[list] as Record<string, unknown>[];
      const limit = Math.min(Number(query.get('limit') ?? 10), 250, pageSize);
      const { page, hasMore } = cursorSlice(rows, query.get('starting_after'), limit, 'key');
      return {
        status: 200,
        body: { data: { has_more: hasMore, items: page, total: rows.length }, message: 'Success', status: 200 },
      };
    },
  });
}
