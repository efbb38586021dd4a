/**
 * Lemon Squeezy coupon attribution through its API: an `order_created` delivery with
 * `discount_total` > 0 and no tracker metadata (the published order shape,
 * ../providers/fixtures/discounts/lemonsqueezy/order-created-with-discount.json) makes the service
 * ask `GET /v1/discount-redemptions?filter[order_id]=…` with the connection's API key, and the
 * redemption's `discount_code` (or `discount_id`) attributes the sale to the code's partner.
 *
 * No network here: a local node:http server stands in for api.lemonsqueezy.com
 * (LEMONSQUEEZY_API_BASE), answering with the shape of the fixture
 * ../providers/fixtures/discounts/lemonsqueezy/discount-redemption.json.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import type { Fixture } from '../helpers/harness.ts';

type Json = Record<string, any>;
const fixture = (path: string): Json =>
  JSON.parse(readFileSync(new URL(`../providers/fixtures/discounts/lemonsqueezy/${path}`, import.meta.url), 'utf8'));

const API_KEY = 'lsk_live_discount_lookup_key_9f3a';

/** What the stand-in answers, per order id: a status (with an error body) or redemptions. */
type Answer = { status: number } | { redemptions: Json[] };
const script = new Map<string, Answer[]>();
const seen: Array<{ path: string; orderId: string | null; authorization?: string; accept?: string }> = [];
const server = createServer((req: IncomingMessage, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const orderId = url.searchParams.get('filter[order_id]');
  seen.push({ path: url.pathname, orderId, authorization: req.headers.authorization, accept: req.headers.accept });
  const answer: Answer = (orderId ? script.get(orderId)?.shift() : undefined) ?? { redemptions: [] };
  res.setHeader('content-type', 'application/vnd.api+json');
  if ('status' in answer) {
    res.statusCode = answer.status;
    res.end(JSON.stringify({ errors: [{ status: String(answer.status), title: 'stand-in error' }] }));
    return;
  }
  res.end(JSON.stringify({ meta: { page: { total: answer.redemptions.length } }, data: answer.redemptions }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const w = useWebhookHarness(PROVIDER_KITS.lemonsqueezy, {
  DATA_ENCRYPTION_KEYS: generateSealingKey('test1'),
  LEMONSQUEEZY_API_BASE: apiBase,
  LOG_LEVEL: 'info',
});

let orders = 5000;
/** The published discounted order under a fresh order id (so each test has its own script). */
function discountedOrder(): { orderId: string; event: Json } {
  const orderId = String(++orders);
  const event = fixture('order-created-with-discount.json');
  event.data.id = orderId;
  event.data.attributes.first_order_item.order_id = Number(orderId);
  return { orderId, event };
}

/** The fixture's redemption, for `orderId`. */
function redemption(orderId: string): Json {
  const r = fixture('discount-redemption.json');
  r.attributes.order_id = Number(orderId);
  return r;
}

async function codeOwner(f: Fixture, code: { code: string; provider_ids?: string[] }) {
  const { partner } = await w.h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `ls${Math.random().toString(36).slice(2, 8)}`,
    name: 'Podcast host',
  });
  const created = await w.h.admin('POST', `/programs/${f.programId}/partners/${partner.id}/codes`, code);
  return { partnerId: partner.id as number, codeId: created.code.id as number };
}

async function setKey(f: Fixture) {
  await w.h.admin('PATCH', `/programs/${f.programId}/providers/lemonsqueezy`, { api_key: API_KEY });
}

/** Delivers the order and waits for its inbox row to reach `status`. */
async function deliver(f: Fixture, event: Json, status: 'processed' | 'ignored') {
  const delivery = await w.send(f.programId, event);
  expect(delivery.status).toBe(200);
  const [row] = await w.inbox(f.programId);
  return w.waitForInbox(f.programId, row!.id, status);
}

const callsFor = (orderId: string) => seen.filter((s) => s.orderId === orderId);

beforeEach(() => {
  script.clear();
});

describe('lemon squeezy: the discount code is looked up when nothing else attributes the sale', () => {
  test('order_created with discount_total > 0 and no metadata: the redemption’s code attributes it', async () => {
    const f = await w.newProgram();
    await setKey(f);
    const owner = await codeOwner(f, { code: 'partner20' });
    const { orderId, event } = discountedOrder();
    script.set(orderId, [{ redemptions: [redemption(orderId)] }]);
    await deliver(f, event, 'processed');
    const sale = await w.sale(f.programId, `ls-order-${orderId}`);
    expect(sale).toMatchObject({ partner: owner.partnerId, attributed_via: 'coupon', partner_code: owner.codeId });
    const commission = await w.commissionOf(f.programId, sale!.id);
    expect(commission).toMatchObject({ partner: owner.partnerId, amount_cents: 400 });
    expect(callsFor(orderId)).toEqual([
      {
        path: '/v1/discount-redemptions',
        orderId,
        authorization: `Bearer ${API_KEY}`,
        accept: 'application/vnd.api+json',
      },
    ]);
    expect(JSON.stringify(w.h.logs)).not.toContain(API_KEY);
  });

  test('a code registered by the discount’s id matches too', async () => {
    const f = await w.newProgram();
    await setKey(f);
    const owner = await codeOwner(f, { code: 'SPRING-CAST', provider_ids: ['21'] });
    const { orderId, event } = discountedOrder();
    script.set(orderId, [{ redemptions: [redemption(orderId)] }]);
    await deliver(f, event, 'processed');
    expect(await w.sale(f.programId, `ls-order-${orderId}`)).toMatchObject({ partner_code: owner.codeId });
  });

  test('without an API key no call is made, the sale stays unattributed and the log says what to set', async () => {
    const f = await w.newProgram();
    await codeOwner(f, { code: 'PARTNER20' });
    const { orderId, event } = discountedOrder();
    const row = await deliver(f, event, 'ignored');
    expect(row.outcome).toEqual([expect.objectContaining({ kind: 'error', code: 'no_attribution' })]);
    expect(await w.sale(f.programId, `ls-order-${orderId}`)).toBeUndefined();
    expect(callsFor(orderId)).toEqual([]);
    const hint = w.h.logs.filter((l) => l.orderId === orderId);
    expect(hint).toEqual([
      expect.objectContaining({ level: 30, msg: expect.stringMatching(/set the lemonsqueezy connection's API key/) }),
    ]);
  });

  test('a 500 is retried: the next attempt attributes the sale, once', async () => {
    const f = await w.newProgram();
    await setKey(f);
    const owner = await codeOwner(f, { code: 'PARTNER20' });
    const { orderId, event } = discountedOrder();
    script.set(orderId, [{ status: 500 }, { redemptions: [redemption(orderId)] }]);
    const row = await deliver(f, event, 'processed');
    expect(row.attempts).toBe(2);
    expect(callsFor(orderId)).toHaveLength(2);
    const sales = (await w.list(f.programId, 'sales')).filter((s) => s.transaction_id === `ls-order-${orderId}`);
    expect(sales).toEqual([expect.objectContaining({ partner: owner.partnerId, attributed_via: 'coupon' })]);
    const commissions = (await w.list(f.programId, 'commissions')).filter((c) => c.sale === sales[0]!.id);
    expect(commissions).toHaveLength(1);
  });

  test('a 401 is no code: unattributed, warned, asked once (no retry loop)', async () => {
    const f = await w.newProgram();
    await setKey(f);
    await codeOwner(f, { code: 'PARTNER20' });
    const { orderId, event } = discountedOrder();
    script.set(orderId, [{ status: 401 }, { redemptions: [redemption(orderId)] }]);
    const row = await deliver(f, event, 'ignored');
    expect(row.attempts).toBe(1);
    expect(await w.sale(f.programId, `ls-order-${orderId}`)).toBeUndefined();
    // Retries would come within a few hundred milliseconds (WEBHOOK_RETRY_BASE_MS 50).
    await new Promise((r) => setTimeout(r, 500));
    expect(callsFor(orderId)).toHaveLength(1);
    const warned = w.h.logs.filter((l) => l.orderId === orderId && l.level === 40);
    expect(warned).toEqual([
      expect.objectContaining({ status: 401, msg: expect.stringMatching(/refused the discount lookup/) }),
    ]);
    expect(JSON.stringify(w.h.logs)).not.toContain(API_KEY);
  });

  test('an order with tracker metadata, or without a discount, is never looked up', async () => {
    const f = await w.newProgram();
    await setKey(f);
    await codeOwner(f, { code: 'PARTNER20' });
    const { orderId, event } = discountedOrder();
    event.data.attributes.discount_total = 0;
    await deliver(f, event, 'ignored');
    const tracked = discountedOrder();
    tracked.event.meta.custom_data = { tracker_click_id: 'clk_unknown', tracker_customer_key: 'nobody' };
    await w.send(f.programId, tracked.event);
    await new Promise((r) => setTimeout(r, 500));
    expect([...callsFor(orderId), ...callsFor(tracked.orderId)]).toEqual([]);
  });
});
