/**
 * A local stand-in for Stripe's Transfers API (STRIPE_API_BASE), for payout runs: `POST
 * /v1/transfers` makes a transfer of the published object's shape
 * (../providers/fixtures/published/stripe/transfer.json) and, like Stripe, answers a repeated
 * `Idempotency-Key` with the first transfer, until `forgetKeys()` (Stripe keeps keys 24 hours);
 * `GET /v1/transfers` lists them newest first, filtered by `transfer_group`, in pages of `limit`
 * with `starting_after` (https://docs.stripe.com/api/transfers/list, https://docs.stripe.com/api/pagination).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadPublished } from '../providers/fixtures/published.ts';

type Json = Record<string, any>;

export type FakeStripe = {
  url: string;
  /** Every transfer made, oldest first. */
  transfers: Json[];
  requests: Array<{
    method: string;
    path: string;
    key: string | undefined;
    authorization: string | undefined;
    query: URLSearchParams;
    form: URLSearchParams;
  }>;
  /** Makes a transfer as a request reaching Stripe would (the crash after Stripe made it, before its answer was used). */
  make(fields: Record<string, string>, idempotencyKey?: string): Json;
  /** Forgets the idempotency keys, as Stripe does 24 hours after their first use. */
  forgetKeys(): void;
  /** The next `n` requests of `method` answer 500. */
  failNext(method: 'GET' | 'POST', n: number): void;
  /**
   * After `n` more answered transfers, each further `POST` makes its transfer and never answers
   * (a process killed while Stripe's answer was on its way); `null` answers again.
   */
  holdAfter(n: number | null): void;
  close(): Promise<void>;
};

export async function startFakeStripe(): Promise<FakeStripe> {
  const transfers: Json[] = [];
  const keys = new Map<string, Json>();
  const failures = { GET: 0, POST: 0 };
  let answeredBeforeHold: number | null = null;
  const requests: FakeStripe['requests'] = [];
  const make = (fields: Record<string, string>, key?: string) => {
    const form = new URLSearchParams(fields);
    const transfer = {
      ...loadPublished('stripe', 'transfer'),
      id: `tr_fake_${transfers.length + 1}`,
      amount: Number(form.get('amount')),
      currency: form.get('currency'),
      destination: form.get('destination'),
      transfer_group: form.get('transfer_group'),
      reversed: false,
      amount_reversed: 0,
      metadata: Object.fromEntries(
        [...form].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]),
      ),
    };
    transfers.push(transfer);
    if (key) keys.set(key, transfer);
    return transfer;
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stripe.local');
      const method = req.method === 'GET' ? 'GET' : 'POST';
      const key = req.headers['idempotency-key'] as string | undefined;
      const form = new URLSearchParams(raw);
      requests.push({
        method,
        path: url.pathname,
        key,
        authorization: req.headers.authorization,
        query: url.searchParams,
        form,
      });
      res.setHeader('content-type', 'application/json');
      const answer = (status: number, body: unknown) => {
        res.statusCode = status;
        res.end(JSON.stringify(body));
      };
      if (url.pathname !== '/v1/transfers')
        return answer(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
      if (failures[method] > 0) {
        failures[method]--;
        return answer(500, { error: { type: 'api_error', message: 'stand-in: transient error' } });
      }
      if (method === 'POST') {
        const transfer = (key && keys.get(key)) || make(Object.fromEntries(form), key);
        if (answeredBeforeHold !== null && answeredBeforeHold-- <= 0) return; // made, never answered
        return answer(200, transfer);
      }
      const group = url.searchParams.get('transfer_group');
      const limit = Number(url.searchParams.get('limit') ?? 10);
      let newest = transfers.filter((t) => !group || t.transfer_group === group).reverse();
      const after = url.searchParams.get('starting_after');
      if (after) newest = newest.slice(newest.findIndex((t) => t.id === after) + 1);
      answer(200, {
        object: 'list',
        url: '/v1/transfers',
        has_more: newest.length > limit,
        data: newest.slice(0, limit),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    transfers,
    requests,
    make,
    forgetKeys: () => keys.clear(),
    failNext: (method, n) => {
      failures[method] = n;
    },
    holdAfter: (n) => {
      answeredBeforeHold = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
