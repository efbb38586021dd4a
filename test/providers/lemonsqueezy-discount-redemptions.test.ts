/**
 * The Lemon Squeezy discount lookup against a local node:http server standing in for
 * api.lemonsqueezy.com (no network here): what it reads from the fixture's shape, and how each
 * failure is classified (retryable or refused).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { createLemonSqueezyDiscountLookup } from '../../src/providers/lemonsqueezy/discount-redemptions.ts';
import { createLemonSqueezyAdapter } from '../../src/providers/lemonsqueezy/adapter.ts';
import { RetryableError } from '../../src/core/shared/errors.ts';
import { CTX } from './fixtures/clock.ts';

const redemption = JSON.parse(
  readFileSync(new URL('./fixtures/discounts/lemonsqueezy/discount-redemption.json', import.meta.url), 'utf8'),
);
const order = JSON.parse(
  readFileSync(new URL('./fixtures/discounts/lemonsqueezy/order-created-with-discount.json', import.meta.url), 'utf8'),
);

let respond: (res: ServerResponse) => void = (res) => res.end();
const server = createServer((_req, res) => respond(res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const lookup = createLemonSqueezyDiscountLookup({ baseUrl, timeoutMs: 200 });
const ask = () => lookup({ provider: 'lemonsqueezy', orderId: '1002' }, 'lsk_secret_key');

test('the code and the discount id of the order’s redemptions; another order’s are left out', async () => {
  const other = { ...redemption, attributes: { ...redemption.attributes, order_id: 9, discount_code: 'OTHER' } };
  respond = (res) => res.end(JSON.stringify({ data: [redemption, other] }));
  expect(await ask()).toEqual({ kind: 'found', codes: ['PARTNER20', '21'] });
  respond = (res) => res.end(JSON.stringify({ data: [] }));
  expect(await ask()).toEqual({ kind: 'found', codes: [] });
});

test('401, 403 and 404 are refused; 429, 5xx, a bad body and a timeout are retryable, never naming the key', async () => {
  for (const status of [401, 403, 404]) {
    respond = (res) => {
      res.statusCode = status;
      res.end('{}');
    };
    expect(await ask()).toEqual({ kind: 'refused', status });
  }
  const failures: Array<(res: ServerResponse) => void> = [
    (res) => {
      res.statusCode = 429;
      res.end('{}');
    },
    (res) => {
      res.statusCode = 503;
      res.end('{}');
    },
    (res) => res.end('not json'),
    () => {
      /* never answers: the 200 ms timeout */
    },
  ];
  for (const failure of failures) {
    respond = failure;
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).not.toContain('lsk_secret_key');
  }
});

test('the adapter marks a discounted order without tracker metadata for the lookup, and only that', () => {
  const adapter = createLemonSqueezyAdapter();
  const jobOf = (event: unknown) => {
    const out = adapter.normalise(event, CTX);
    return 'jobs' in out ? (out.jobs[0] as { couponLookup?: unknown } | undefined) : undefined;
  };
  expect(jobOf(order)?.couponLookup).toEqual({ provider: 'lemonsqueezy', orderId: '1002' });
  const undiscounted = structuredClone(order);
  undiscounted.data.attributes.discount_total = 0;
  expect(jobOf(undiscounted)?.couponLookup).toBeNull();
  const withCode = { ...order, meta: { ...order.meta, custom_data: { tracker_coupon_code: 'LEMON10' } } };
  expect(jobOf(withCode)?.couponLookup).toBeNull();
});
