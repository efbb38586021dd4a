import { describe, expect, test } from 'vitest';
import { createTrackerClient } from '../../tracker/src/client.ts';
import { API_KEY, onlyRequest, useStubbedClient } from './stubbed-client.ts';

const stub = useStubbedClient();
const only = (path: string) => onlyRequest(stub.server(), path);

describe('wire mapping', () => {
  test('trackLead posts customer_key, click_id, email, event_name, additional_data with the bearer key', async () => {
    const res = await stub.client().trackLead({
      customerExternalId: 'user_42',
      clickId: 'clk_1',
      email: 'a@example.com',
      eventName: 'signup',
      additionalData: { plan: 'pro' },
    });
    expect(res).toEqual({
      ok: true,
      status: 200,
      data: { success: true, path: 'lead' },
      error: undefined,
      code: undefined,
    });
    const req = only('/api/v1/track/lead');
    expect(req.method).toBe('POST');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({
      customer_key: 'user_42',
      click_id: 'clk_1',
      email: 'a@example.com',
      event_name: 'signup',
      additional_data: { plan: 'pro' },
    });
  });

  test('trackSale maps every field to its snake_case name', async () => {
    const res = await stub.client().trackSale({
      customerExternalId: 'user_42',
      clickId: 'clk_1',
      amount: 4900,
      invoiceId: 'in_123',
      taxCents: 400,
      currency: 'EUR',
      saleType: 'subscription',
      isRecurring: true,
      subscriptionId: 'sub_9',
      subscriptionInterval: 'monthly',
      eventName: 'purchase',
      email: 'a@example.com',
      additionalData: { coupon: 'X' },
    });
    expect(res.ok).toBe(true);
    const req = only('/api/v1/track/sale');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.json).toEqual({
      customer_key: 'user_42',
      click_id: 'clk_1',
      transaction_id: 'in_123',
      amount_cents: 4900,
      tax_cents: 400,
      currency: 'EUR',
      sale_type: 'subscription',
      is_recurring: true,
      subscription_id: 'sub_9',
      subscription_interval: 'monthly',
      event_name: 'purchase',
      email: 'a@example.com',
      additional_data: { coupon: 'X' },
    });
  });

  test('trackSale omits fields that were not given', async () => {
    await stub.client().trackSale({ clickId: 'clk_1', amount: 1, invoiceId: 'in_1' });
    expect(only('/api/v1/track/sale').json).toEqual({ click_id: 'clk_1', transaction_id: 'in_1', amount_cents: 1 });
  });

  test('trackTestSale forces additional_data.test_mode and needs no customer', async () => {
    await stub.client().trackTestSale({
      amount: 4900,
      currency: 'USD',
      invoiceId: 'cli-1',
      additionalData: { test_mode: false, source: 'x' },
    });
    expect(only('/api/v1/track/sale').json).toEqual({
      transaction_id: 'cli-1',
      amount_cents: 4900,
      currency: 'USD',
      additional_data: { test_mode: true, source: 'x' },
    });
    stub.server().requests.length = 0;
    await stub.client().trackTestSale();
    expect(only('/api/v1/track/sale').json).toEqual({ additional_data: { test_mode: true } });
  });

  test('trackRefund posts transaction_id, refund_amount_cents, refund_id, refund_reason, reason', async () => {
    await stub.client().trackRefund({
      invoiceId: 'in_123',
      refundAmountCents: 1000,
      refundId: 're_1',
      refundReason: 'damaged',
      reason: 'chargeback',
    });
    const req = only('/api/v1/track/refund');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.json).toEqual({
      transaction_id: 'in_123',
      refund_amount_cents: 1000,
      refund_id: 're_1',
      refund_reason: 'damaged',
      reason: 'chargeback',
    });
  });

  test('trackRefund accepts 0 (refund the rest)', async () => {
    await stub.client().trackRefund({ invoiceId: 'in_123', refundAmountCents: 0 });
    expect(only('/api/v1/track/refund').json).toEqual({ transaction_id: 'in_123', refund_amount_cents: 0 });
  });

  test('trackClick sends no Authorization header', async () => {
    const res = await stub.client().trackClick({
      affiliateUrl: 'https://shop.example/?aff=p1',
      pageUrl: 'https://shop.example/pricing',
      referrerUrl: 'https://blog.example/',
      existingClickId: 'clk_old',
      visitorId: 'v_1',
    });
    expect(res.ok).toBe(true);
    const req = only('/api/v1/track/click');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json).toEqual({
      affiliate_url: 'https://shop.example/?aff=p1',
      page_url: 'https://shop.example/pricing',
      referrer_url: 'https://blog.example/',
      existing_click_id: 'clk_old',
      visitor_id: 'v_1',
    });
  });

  test('status is a GET with the bearer key and no body', async () => {
    const res = await stub.client().status();
    expect(res).toMatchObject({ ok: true, status: 200, data: { program_id: 7 } });
    const req = only('/api/v1/cli/status');
    expect(req.method).toBe('GET');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toBeUndefined();
    expect(req.text).toBe('');
  });
});

describe('throws before sending', () => {
  test.each([
    ['no apiKey', () => createTrackerClient({ apiKey: '' }), TypeError],
    ['apiKey missing entirely', () => createTrackerClient({} as never), TypeError],
    ['lead without customer id or click id', () => stub.client().trackLead({ email: 'a@example.com' }), TypeError],
    ['lead with blank ids', () => stub.client().trackLead({ customerExternalId: ' ', clickId: '' }), TypeError],
    [
      'sale without customer id or click id',
      () => stub.client().trackSale({ amount: 100, invoiceId: 'in_1' }),
      TypeError,
    ],
    ['sale amount 0', () => stub.client().trackSale({ clickId: 'c', amount: 0, invoiceId: 'in_1' }), RangeError],
    [
      'sale amount negative',
      () => stub.client().trackSale({ clickId: 'c', amount: -5, invoiceId: 'in_1' }),
      RangeError,
    ],
    [
      'sale amount fractional (49.00 given as 49.5)',
      () => stub.client().trackSale({ clickId: 'c', amount: 49.5, invoiceId: 'in_1' }),
      RangeError,
    ],
    [
      'sale amount beyond safe integers',
      () => stub.client().trackSale({ clickId: 'c', amount: 2 ** 53, invoiceId: 'in_1' }),
      RangeError,
    ],
    [
      'sale amount as a string',
      () => stub.client().trackSale({ clickId: 'c', amount: '4900' as never, invoiceId: 'in_1' }),
      RangeError,
    ],
    ['sale amount missing', () => stub.client().trackSale({ clickId: 'c', invoiceId: 'in_1' } as never), TypeError],
    ['sale invoiceId missing', () => stub.client().trackSale({ clickId: 'c', amount: 100 } as never), TypeError],
    ['sale invoiceId empty', () => stub.client().trackSale({ clickId: 'c', amount: 100, invoiceId: '' }), TypeError],
    [
      'sale taxCents negative',
      () => stub.client().trackSale({ clickId: 'c', amount: 100, invoiceId: 'in_1', taxCents: -1 }),
      RangeError,
    ],
    ['test sale amount fractional', () => stub.client().trackTestSale({ amount: 1.5 }), RangeError],
    ['refund invoiceId missing', () => stub.client().trackRefund({} as never), TypeError],
    ['refund invoiceId empty', () => stub.client().trackRefund({ invoiceId: '' }), TypeError],
    [
      'refund amount negative',
      () => stub.client().trackRefund({ invoiceId: 'in_1', refundAmountCents: -100 }),
      RangeError,
    ],
    [
      'refund amount fractional',
      () => stub.client().trackRefund({ invoiceId: 'in_1', refundAmountCents: 10.5 }),
      RangeError,
    ],
  ])('%s', (_label, call, errorType) => {
    expect(call).toThrow(errorType);
    expect(stub.server().requests).toEqual([]);
  });
});
