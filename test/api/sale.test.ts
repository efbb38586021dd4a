import { beforeAll, describe, expect, test } from 'vitest';
import {
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
let seq = 0;
const tx = () => `tx-${++seq}`;
const sale = (body: Record<string, unknown>, key = f.liveKey) =>
  h.request('/api/v1/track/sale', { body, headers: bearer(key) });
const counts = async (programId = f.programId) => {
  const [sales, commissions, fees, tests] = await Promise.all(
    ['sales', 'commissions', 'platform-fees', 'test-events'].map((k) =>
      h.admin('GET', `/programs/${programId}/${k}?limit=500`),
    ),
  );
  return {
    sales: sales.sales.length,
    commissions: commissions.commissions.length,
    fees: fees['platform-fees'].length,
    tests: tests['test-events'].length,
  };
};

beforeAll(async () => {
  f = await createProgramFixture(h, {
    commission_rate_bps: 2000,
    attribution_window_days: 30,
    platform_fee_bps: 150,
    product_rates_bps: { 'pro-plan': 3000 },
  });
  await clickAndLead(h, f, 'alice');
});

describe('POST /api/v1/track/sale: responses', () => {
  test('attributed: 200 with sale_id, commission_id and message; commission = rate × amount_cents as sent', async () => {
    const r = await sale({
      transaction_id: tx(),
      amount_cents: 4900,
      tax_cents: 900,
      customer_key: 'alice',
      line_items: { sku: 'a', qty: 2 },
      occurred_at: new Date(Date.now() - 3_600_000).toISOString(),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      sale_id: expect.any(Number),
      commission_id: expect.any(Number),
      message: expect.any(String),
    });
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    const c = commissions.find((x: any) => x.id === r.body.commission_id);
    // 20% of 4900 (tax_cents is ignored for the calculation): 980.
    expect(c).toMatchObject({ amount_cents: 980, currency: 'USD', status: 'pending', partner: f.partnerId });
    const { sales } = await h.admin('GET', `/programs/${f.programId}/sales`);
    const s = sales.find((x: any) => x.id === r.body.sale_id);
    expect(s).toMatchObject({
      line_items: { sku: 'a', qty: 2 },
      tax_cents: 900,
      amount_cents: 4900,
      sale_type: 'payment',
      is_recurring: false,
      refunded_cents: 0,
    });
    expect(s.occurred_at).not.toBeNull();
    const fees = (await h.admin('GET', `/programs/${f.programId}/platform-fees`))['platform-fees'];
    expect(fees.find((x: any) => x.sale === r.body.sale_id)).toMatchObject({ amount_cents: 74, rate_bps: 150 }); // 1.5% of 4900 = 73.5 → 74
  });

  test('currencies EUR and VND are accepted and never converted', async () => {
    const eur = await sale({ transaction_id: tx(), amount_cents: 1000, currency: 'EUR', customer_key: 'alice' });
    const vnd = await sale({
      transaction_id: tx(),
      amount_cents: 1_250_000_000,
      currency: 'VND',
      customer_key: 'alice',
    });
    expect([eur.status, vnd.status]).toEqual([200, 200]);
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    expect(commissions.find((c: any) => c.id === eur.body.commission_id)).toMatchObject({
      currency: 'EUR',
      amount_cents: 200,
    });
    expect(commissions.find((c: any) => c.id === vnd.body.commission_id)).toMatchObject({
      currency: 'VND',
      amount_cents: 250_000_000,
    });
  });

  test('per-product policy matched by product_id overrides the program rate', async () => {
    const r = await sale({ transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', product_id: 'pro-plan' });
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    expect(commissions.find((c: any) => c.id === r.body.commission_id)).toMatchObject({
      amount_cents: 300,
      rate_bps: 3000,
    });
  });

  test('click_id is the fallback when customer_key is absent', async () => {
    const clickId = await clickAndLead(h, f, 'bob');
    const r = await sale({ transaction_id: tx(), amount_cents: 1000, click_id: clickId });
    expect(r.status).toBe(200);
    expect(r.body.commission_id).toEqual(expect.any(Number));
  });

  test('attribution window expired: 200 attributed false, nothing created', async () => {
    const h2 = await createHarness();
    try {
      const f2 = await createProgramFixture(h2, { attribution_window_days: 30 });
      await clickAndLead(h2, f2, 'late');
      h2.clock.advanceDays(45.5);
      const r = await h2.request('/api/v1/track/sale', {
        body: { transaction_id: 'late-1', amount_cents: 1000, customer_key: 'late' },
        headers: bearer(f2.liveKey),
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        success: true,
        attributed: false,
        reason: 'attribution_window_expired',
        click_age_days: 45,
        window_days: 30,
        sale_id: null,
        commission_id: null,
      });
      expect((await h2.admin('GET', `/programs/${f2.programId}/sales`)).sales).toHaveLength(0);
      expect((await h2.admin('GET', `/programs/${f2.programId}/commissions`)).commissions).toHaveLength(0);
    } finally {
      await h2.close();
    }
  });

  test.each([
    ['a test API key', {}, 'test'],
    ['livemode false', { livemode: false }, 'live'],
    ['additional_data.test_mode true', { additional_data: { test_mode: true } }, 'live'],
  ])('test mode via %s: 200 with data.eventId/programId/test_mode, no production rows', async (_l, extra, keyMode) => {
    const before = await counts();
    const r = await sale(
      { transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', ...extra },
      keyMode === 'test' ? f.testKey : f.liveKey,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: expect.any(String),
      data: { eventId: expect.any(Number), programId: f.programId, test_mode: true },
    });
    const after = await counts();
    expect(after).toEqual({ ...before, tests: before.tests + 1 });
  });

  test('test mode: transaction_id and amount_cents are optional; a repeated test transaction returns the same event', async () => {
    const r = await sale({}, f.testKey);
    expect(r.status).toBe(200);
    expect(r.body.data.test_mode).toBe(true);
    const a = await sale({ transaction_id: 'test-tx', amount_cents: 5 }, f.testKey);
    const b = await sale({ transaction_id: 'test-tx', amount_cents: 5 }, f.testKey);
    expect(b.body.data.eventId).toBe(a.body.data.eventId);
  });

  test('livemode true or omitted does not force a live sale with a test key', async () => {
    const r = await sale(
      { transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', livemode: true },
      f.testKey,
    );
    expect(r.body.data.test_mode).toBe(true);
  });

  test('duplicate transaction_id: 409 platform envelope, ConflictError, details.sale_id of the first sale; no second sale', async () => {
    const id = tx();
    const first = await sale({ transaction_id: id, amount_cents: 1000, customer_key: 'alice' });
    const before = await counts();
    const again = await sale({ transaction_id: id, amount_cents: 2000, customer_key: 'alice' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      data: null,
      error: {
        status: 409,
        name: 'ConflictError',
        message: expect.any(String),
        details: { sale_id: first.body.sale_id },
        code: 'duplicate_transaction',
      },
    });
    expect(await counts()).toEqual(before);
  });
});

describe('POST /api/v1/track/sale: errors', () => {
  const base = () => ({ transaction_id: tx(), amount_cents: 1000, customer_key: 'alice' });
  test.each([
    ['transaction_id missing', { transaction_id: undefined }],
    ['transaction_id not a string', { transaction_id: 123 }],
    ['amount_cents missing', { amount_cents: undefined }],
    ['amount_cents zero', { amount_cents: 0 }],
    ['amount_cents negative', { amount_cents: -5 }],
    ['amount_cents fractional', { amount_cents: 10.5 }],
    ['amount_cents a string', { amount_cents: '1000' }],
    ['occurred_at not ISO 8601', { occurred_at: 'yesterday' }],
    ['occurred_at without offset', { occurred_at: '2026-11-20T10:00:00' }],
    ['occurred_at more than 30 days ago', { occurred_at: new Date(Date.now() - 31 * 86_400_000).toISOString() }],
    ['occurred_at more than 5 minutes ahead', { occurred_at: new Date(Date.now() + 6 * 60_000).toISOString() }],
    ['provider unknown', { provider: 'paypal' }],
    ['provider_payment_id empty', { provider_payment_id: '' }],
    ['provider_payment_id over 255 characters', { provider_payment_id: 'x'.repeat(256) }],
    ['livemode not a boolean', { livemode: 'false' }],
    ['additional_data.test_mode a string', { additional_data: { test_mode: 'true' } }],
    ['additional_data.test_mode a number', { additional_data: { test_mode: 1 } }],
    ['additional_data.test_mode null', { additional_data: { test_mode: null } }],
    ['sale_type unknown', { sale_type: 'gift' }],
    ['subscription_interval unknown', { subscription_interval: 'weekly' }],
    ['an unknown field', { coupon: 'X' }],
    ['a huge string', { customer_key: 'k'.repeat(10_000) }],
  ])('400 invalid_request: %s (nothing created)', async (_l, patch) => {
    const before = await counts();
    const r = await sale({ ...base(), ...patch });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      data: null,
      error: {
        status: 400,
        name: 'BadRequestError',
        code: 'invalid_request',
        message: expect.any(String),
        details: expect.any(Object),
      },
    });
    expect(await counts()).toEqual(before);
  });

  test('additional_data.test_mode that is not a boolean is refused naming the field; false and other keys are accepted', async () => {
    const r = await sale({ ...base(), additional_data: { test_mode: 'true', plan: 'pro' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('additional_data.test_mode');
    expect(r.body.error.details.issues[0]).toMatchObject({ field: 'additional_data.test_mode' });
    const live = await sale({ ...base(), additional_data: { test_mode: false, plan: 'pro' } });
    expect(live.status).toBe(200);
    expect(live.body.commission_id).toEqual(expect.any(Number));
  });

  test('occurred_at within bounds (29 days ago, 4 minutes ahead, with offset) is accepted', async () => {
    // Measured from the service's injected clock, not the wall clock: a slow run must not move the bounds.
    const now = h.clock.now.getTime();
    const ago = new Date(now - 29 * 86_400_000).toISOString().replace('Z', '+00:00');
    expect((await sale({ ...base(), occurred_at: ago })).status).toBe(200);
    expect((await sale({ ...base(), occurred_at: new Date(now + 4 * 60_000).toISOString() })).status).toBe(200);
  });

  test.each([
    ['unknown customer_key', { customer_key: 'nobody' }],
    ['unknown click_id', { customer_key: undefined, click_id: 'no-such-click' }],
    ['neither customer_key nor click_id', { customer_key: undefined }],
  ])('400 no_attribution: %s', async (_l, patch) => {
    const r = await sale({ ...base(), ...patch });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'no_attribution', name: 'BadRequestError', status: 400 });
  });

  test('400 no_attribution: the customer belongs to another program', async () => {
    const other = await createProgramFixture(h);
    await clickAndLead(h, other, 'carol');
    const r = await sale({ ...base(), customer_key: 'carol' });
    expect(r.body.error.code).toBe('no_attribution');
  });

  test('400 no_attribution: a customer with no partner relationship (lead by customer key only)', async () => {
    const r0 = await h.request('/api/v1/track/lead', { body: { customer_key: 'dave' }, headers: bearer(f.liveKey) });
    expect(r0.status).toBe(200);
    const r = await sale({ ...base(), customer_key: 'dave' });
    expect(r.body.error.code).toBe('no_attribution');
  });

  test('422 unsupported_currency creates no sale, commission or fee', async () => {
    const before = await counts();
    const r = await sale({ ...base(), currency: 'GBP' });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ data: null, error: { status: 422, code: 'unsupported_currency' } });
    expect(await counts()).toEqual(before);
  });

  test.each([
    ['missing header', undefined],
    ['malformed header', 'Token abc'],
    ['unknown key', 'Bearer trk_live_doesnotexist123456'],
  ])('401 unauthorized: %s', async (_l, header) => {
    const r = await h.request('/api/v1/track/sale', { body: base(), headers: header ? { authorization: header } : {} });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      data: null,
      error: { status: 401, name: 'UnauthorizedError', message: expect.any(String), details: {}, code: 'unauthorized' },
    });
  });

  test('401 api_key_rotation_required: typed envelope with hint and docs_url', async () => {
    const k = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    await h.admin('POST', `/programs/${f.programId}/keys/${k.id}/retire`, {});
    const r = await sale(base(), k.key);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: {
        code: 'api_key_rotation_required',
        message: expect.any(String),
        hint: expect.any(String),
        docs_url: expect.stringMatching(/^https?:\/\//),
      },
    });
  });

  test('429 rate_limited: typed envelope with retry_after_seconds and Retry-After', async () => {
    const limited = await createProgramFixture(h, { rate_limit_per_minute: 2 });
    const call = () =>
      h.request('/api/v1/track/sale', {
        body: { transaction_id: tx(), amount_cents: 1 },
        headers: bearer(limited.testKey),
      });
    await call();
    await call();
    const r = await call();
    expect(r.status).toBe(429);
    expect(r.body).toEqual({
      error: { code: 'rate_limited', message: expect.any(String), retry_after_seconds: expect.any(Number) },
    });
    expect(r.body.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('retry-after')).toBe(String(r.body.error.retry_after_seconds));
  });
});
