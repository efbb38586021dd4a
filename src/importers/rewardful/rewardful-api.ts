/**
 * Rewardful's REST API, read only (https://developers.rewardful.com/rest-api/overview): HTTP
 * Basic auth with the API secret as the user name and no password, JSON answers, page-numbered
 * lists (`?page=&limit=`, at most 100 a page) answered as `{ pagination: { next_page, … }, data }`.
 */
import type { SourceFetch } from '../reader-options.ts';

export const REWARDFUL_API = 'https://api.getrewardful.com/v1';

const PAGE_LIMIT = 100;
const TIMEOUT_MS = 30_000;
const RETRIES = 3;

export type RewardfulPage = {
  pagination?: { next_page?: number | null; current_page?: number; total_pages?: number };
  data?: unknown[];
};

/** Every object of a list endpoint (`affiliates`, `referrals`, `commissions`, `payouts`), page by page. */
export async function* listAll(
  apiKey: string,
  baseUrl: string,
  resource: string,
  expand: string[] = [],
  send: SourceFetch = fetch,
): AsyncGenerator<Record<string, unknown>> {
  let page: number | null = 1;
  while (page !== null) {
    const url = new URL(`${baseUrl.replace(/\/$/, '')}/${resource}`);
    url.searchParams.set('page', String(page));
    url.searchParams.set('limit', String(PAGE_LIMIT));
    for (const e of expand) url.searchParams.append('expand[]', e);
    const body = await getJson(url, apiKey, send);
    for (const item of body.data ?? []) if (item && typeof item === 'object') yield item as Record<string, unknown>;
    const next = body.pagination?.next_page;
    page = typeof next === 'number' && next > page ? next : null;
  }
}

async function getJson(url: URL, apiKey: string, send: SourceFetch): Promise<RewardfulPage> {
  const auth = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
  for (let attempt = 1; ; attempt++) {
    const res = await send(url, {
      headers: { authorization: auth, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status === 429 && attempt < RETRIES) {
      const wait = Math.min(Number(res.headers.get('retry-after')) || attempt, 30);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    if (res.status === 401) throw new Error('Rewardful refused the API secret (401): check the key');
    if (!res.ok) throw new Error(`Rewardful answered ${res.status} for ${url.pathname}`);
    return (await res.json()) as RewardfulPage;
  }
}
