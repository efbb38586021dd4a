/**
 * POST /api/v1/track/sale errors: validation naming the field (and the bounds just inside it that
 * pass), attribution that cannot be made, unsupported currencies, keys to rotate, rate limits.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';
import { createSaleProgram, saleSteps } from './sale-program.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createSaleProgram(h);
});
const { tx, sale, counts } = saleSteps(h, () => f);

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
    // Without the CURRENCIES setting: the contract's message and details, as before it existed.
    expect(r.body.error.message).toBe('Currency "GBP" is not supported; use USD, EUR or VND');
    expect(r.body.error.details).toEqual({ currency: 'GBP', supported: ['USD', 'EUR', 'VND'] });
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
