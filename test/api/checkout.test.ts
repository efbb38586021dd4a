/** POST /api/v1/track/checkout (extension): order registrations for the VietQR gateways. */
import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';
import { assertDocumentedResponse } from '../helpers/contract.ts';

const h = useHarness();
let f: Fixture;
let other: Fixture;
const checkout = async (body: unknown, headers: Record<string, string>) => {
  const r = await h.request('/api/v1/track/checkout', { body, headers });
  assertDocumentedResponse('POST', '/api/v1/track/checkout', r);
  return r;
};

beforeAll(async () => {
  f = await createProgramFixture(h);
  other = await createProgramFixture(h);
});

describe('POST /api/v1/track/checkout', () => {
  test('registers an order; the same registration again answers the same, other values are 409 conflict', async () => {
    const body = {
      order_code: 'DH1001',
      customer_key: 'user_1',
      provider: 'payos',
      amount_cents: 250000,
      currency: 'vnd',
    };
    const first = await checkout(body, bearer(f.liveKey));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      order_id: expect.any(Number),
      order_code: 'DH1001',
      customer_key: 'user_1',
      click_id: null,
      provider: 'payos',
      amount_cents: 250000,
      currency: 'VND',
      created_at: expect.any(String),
    });
    h.clock.advanceDays(1);
    const again = await checkout(body, bearer(f.liveKey));
    expect(again).toMatchObject({ status: 200, body: first.body });
    const conflict = await checkout({ ...body, customer_key: 'user_2' }, bearer(f.liveKey));
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({
      code: 'conflict',
      details: { order_code: 'DH1001', fields: ['customer_key'] },
    });
  });

  test('order codes are per program: another program registers the same code for its own customer', async () => {
    const r = await checkout({ order_code: 'DH1001', customer_key: 'someone_else' }, bearer(other.liveKey));
    expect(r.status).toBe(200);
    expect(r.body.customer_key).toBe('someone_else');
  });

  test('a click id must be one of this program’s clicks', async () => {
    const click = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${other.partnerCode}` },
    });
    const foreign = await checkout({ order_code: 'DH2001', click_id: click.body.click_id }, bearer(f.liveKey));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'click_id' } });
    const own = await checkout({ order_code: 'DH2001', click_id: click.body.click_id }, bearer(other.liveKey));
    expect(own).toMatchObject({ status: 200, body: { click_id: click.body.click_id, customer_key: null } });
  });

  test('neither customer_key nor click_id, or no order_code: 400; no key: 401', async () => {
    expect((await checkout({ order_code: 'DH3001' }, bearer(f.liveKey))).status).toBe(400);
    expect((await checkout({ customer_key: 'u' }, bearer(f.liveKey))).status).toBe(400);
    expect((await checkout({ order_code: 'DH3001', customer_key: 'u', extra: 1 }, bearer(f.liveKey))).status).toBe(400);
    expect((await checkout({ order_code: 'DH3001', customer_key: 'u' }, {})).status).toBe(401);
  });

  test('a test key records a test event and registers nothing', async () => {
    const r = await checkout({ order_code: 'DH4001', customer_key: 'u' }, bearer(f.testKey));
    expect(r).toMatchObject({ status: 200, body: { success: true, data: { test_mode: true } } });
    const live = await checkout({ order_code: 'DH4001', customer_key: 'someone' }, bearer(f.liveKey));
    expect(live.status).toBe(200);
  });
});
