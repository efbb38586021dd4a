/**
 * A fake of Rewardful's REST API on 127.0.0.1: the list endpoints the importer reads, with HTTP
 * Basic auth (the API secret as user name, as Rewardful documents) and page-numbered pagination
 * (`page`, `limit`, answered with `pagination.next_page`), pages capped at `pageSize` so a small
 * fixture spans several pages.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AFFILIATES, COMMISSIONS, PAYOUTS, REFERRALS } from '../fixtures/rewardful/api-data.ts';

export type FakeSource = { baseUrl: string; apiKey: string; requests: string[]; close(): Promise<void> };

const LISTS: Record<string, unknown[]> = {
  affiliates: AFFILIATES,
  referrals: REFERRALS,
  commissions: COMMISSIONS,
  payouts: PAYOUTS,
};

export async function startRewardfulFake(apiKey = 'sk_rewardful_fake_secret', pageSize = 2): Promise<FakeSource> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`)
      return send(401, { error: 'Invalid API Secret.' });
    const list = LISTS[url.pathname.replace(/^\/v1\//, '')];
    if (req.method !== 'GET' || !list) return send(404, { error: 'Not found' });
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), pageSize);
    const page = Number(url.searchParams.get('page') ?? 1);
    const totalPages = Math.max(1, Math.ceil(list.length / limit));
    send(200, {
      pagination: {
        previous_page: page > 1 ? page - 1 : null,
        current_page: page,
        next_page: page < totalPages ? page + 1 : null,
        count: list.slice((page - 1) * limit, page * limit).length,
        limit,
        total_pages: totalPages,
        total_count: list.length,
      },
      data: list.slice((page - 1) * limit, page * limit),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
