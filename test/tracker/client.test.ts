import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import { findClosedPort, startTestServer, type TestServer } from './test-http-server.ts';

const API_KEY = 'sk_test_4f9c2e7a1b';

let server: TestServer;
let client: TrackerClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createTrackerClient({ apiKey: API_KEY, apiUrl: server.url + '/' });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  for (const path of ['lead', 'sale', 'refund', 'click']) {
    server.on('POST', `/api/v1/track/${path}`, { status: 200, body: { success: true, path } });
  }
  server.on('GET', '/api/v1/cli/status', { status: 200, body: { program_id: 7 } });
});

function only(path: string) {
  expect(server.requests.map((r) => r.path)).toEqual([path]);
  return server.requests[0]!;
}

describe('wire mapping', () => {
  test('trackLead posts customer_key, click_id, email, event_name, additional_data with the bearer key', async () => {
    const res = await client.trackLead({
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
    const res = await client.trackSale({
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
    await client.trackSale({ clickId: 'clk_1', amount: 1, invoiceId: 'in_1' });
    expect(only('/api/v1/track/sale').json).toEqual({ click_id: 'clk_1', transaction_id: 'in_1', amount_cents: 1 });
  });

  test('trackTestSale forces additional_data.test_mode and needs no customer', async () => {
    await client.trackTestSale({
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
    server.requests.length = 0;
    await client.trackTestSale();
    expect(only('/api/v1/track/sale').json).toEqual({ additional_data: { test_mode: true } });
  });

  test('trackRefund posts transaction_id, refund_amount_cents, refund_id, refund_reason, reason', async () => {
    await client.trackRefund({
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
    await client.trackRefund({ invoiceId: 'in_123', refundAmountCents: 0 });
    expect(only('/api/v1/track/refund').json).toEqual({ transaction_id: 'in_123', refund_amount_cents: 0 });
  });

  test('trackClick sends no Authorization header', async () => {
    const res = await client.trackClick({
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
    const res = await client.status();
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
    ['lead without customer id or click id', () => client.trackLead({ email: 'a@example.com' }), TypeError],
    ['lead with blank ids', () => client.trackLead({ customerExternalId: ' ', clickId: '' }), TypeError],
    ['sale without customer id or click id', () => client.trackSale({ amount: 100, invoiceId: 'in_1' }), TypeError],
    ['sale amount 0', () => client.trackSale({ clickId: 'c', amount: 0, invoiceId: 'in_1' }), RangeError],
    ['sale amount negative', () => client.trackSale({ clickId: 'c', amount: -5, invoiceId: 'in_1' }), RangeError],
    [
      'sale amount fractional (49.00 given as 49.5)',
      () => client.trackSale({ clickId: 'c', amount: 49.5, invoiceId: 'in_1' }),
      RangeError,
    ],
    [
      'sale amount beyond safe integers',
      () => client.trackSale({ clickId: 'c', amount: 2 ** 53, invoiceId: 'in_1' }),
      RangeError,
    ],
    [
      'sale amount as a string',
      () => client.trackSale({ clickId: 'c', amount: '4900' as never, invoiceId: 'in_1' }),
      RangeError,
    ],
    ['sale amount missing', () => client.trackSale({ clickId: 'c', invoiceId: 'in_1' } as never), TypeError],
    ['sale invoiceId missing', () => client.trackSale({ clickId: 'c', amount: 100 } as never), TypeError],
    ['sale invoiceId empty', () => client.trackSale({ clickId: 'c', amount: 100, invoiceId: '' }), TypeError],
    [
      'sale taxCents negative',
      () => client.trackSale({ clickId: 'c', amount: 100, invoiceId: 'in_1', taxCents: -1 }),
      RangeError,
    ],
    ['test sale amount fractional', () => client.trackTestSale({ amount: 1.5 }), RangeError],
    ['refund invoiceId missing', () => client.trackRefund({} as never), TypeError],
    ['refund invoiceId empty', () => client.trackRefund({ invoiceId: '' }), TypeError],
    ['refund amount negative', () => client.trackRefund({ invoiceId: 'in_1', refundAmountCents: -100 }), RangeError],
    ['refund amount fractional', () => client.trackRefund({ invoiceId: 'in_1', refundAmountCents: 10.5 }), RangeError],
  ])('%s', (_label, call, errorType) => {
    expect(call).toThrow(errorType);
    expect(server.requests).toEqual([]);
  });
});

describe('failures resolve with ok false', () => {
  const platform = (status: number, name: string, code: string, details: object = {}) => ({
    data: null,
    error: { status, name, message: `${code} happened`, details, code },
  });

  test.each([
    [400, platform(400, 'BadRequestError', 'no_attribution'), 'no_attribution'],
    [400, platform(400, 'BadRequestError', 'invalid_request'), 'invalid_request'],
    [401, platform(401, 'UnauthorizedError', 'unauthorized'), 'unauthorized'],
    [
      401,
      {
        error: {
          code: 'api_key_rotation_required',
          message: 'key retired',
          hint: 'create a new key',
          docs_url: 'https://docs',
        },
      },
      'api_key_rotation_required',
    ],
    [404, platform(404, 'NotFoundError', 'not_found'), 'not_found'],
    [409, platform(409, 'ConflictError', 'duplicate_transaction', { sale_id: 12 }), 'duplicate_transaction'],
    [422, platform(422, 'UnprocessableEntityError', 'unsupported_currency'), 'unsupported_currency'],
    [429, { error: { code: 'rate_limited', message: 'slow down', retry_after_seconds: 30 } }, 'rate_limited'],
    [500, platform(500, 'InternalServerError', 'internal_error'), 'internal_error'],
  ])('HTTP %i with code %s', async (status, body, code) => {
    server.on('POST', '/api/v1/track/sale', { status, body });
    const res = await client.trackSale({ customerExternalId: 'user_42', amount: 4900, invoiceId: 'in_1' });
    expect(res.ok).toBe(false);
    expect(res.status).toBe(status);
    expect(res.data).toBeNull();
    expect(res.code).toBe(code);
    expect(res.error).toContain(code);
  });

  test('the message, hint and retry_after_seconds are kept in error', async () => {
    server.on('POST', '/api/v1/track/refund', {
      status: 429,
      body: { error: { code: 'rate_limited', message: 'slow down', retry_after_seconds: 30 } },
    });
    const limited = await client.trackRefund({ invoiceId: 'in_1' });
    expect(limited.error).toBe('rate_limited: slow down (retry after 30s)');
    server.on('GET', '/api/v1/cli/status', {
      status: 401,
      body: { error: { code: 'api_key_rotation_required', message: 'key retired', hint: 'create a new key' } },
    });
    const retired = await client.status();
    expect(retired.error).toBe('api_key_rotation_required: key retired (create a new key)');
  });

  test('a non-JSON error body (a proxy page) reports the HTTP status', async () => {
    server.on('POST', '/api/v1/track/lead', { status: 502, body: '<html>bad gateway</html>' });
    const res = await client.trackLead({ customerExternalId: 'user_42' });
    expect(res).toEqual({ ok: false, status: 502, data: null, error: 'HTTP 502 Bad Gateway', code: undefined });
  });

  test('a closed port gives status 0 and the network error', async () => {
    const port = await findClosedPort();
    const offline = createTrackerClient({ apiKey: API_KEY, apiUrl: `http://127.0.0.1:${port}` });
    const res = await offline.trackSale({ customerExternalId: 'user_42', amount: 4900, invoiceId: 'in_1' });
    expect(res).toMatchObject({ ok: false, status: 0, data: null, code: undefined });
    expect(res.error).toMatch(/ECONNREFUSED|fetch failed/);
    expect(JSON.stringify(res)).not.toContain(API_KEY);
  });

  test('a server that never answers gives status 0 after timeoutMs', async () => {
    server.on('POST', '/api/v1/track/click', () => new Promise(() => {}));
    const impatient = createTrackerClient({ apiKey: API_KEY, apiUrl: server.url, timeoutMs: 200 });
    const res = await impatient.trackClick({ affiliateUrl: 'https://shop.example/?aff=p1' });
    expect(res).toEqual({ ok: false, status: 0, data: null, error: 'request timed out after 200 ms', code: undefined });
  });

  test('an injected fetch is used instead of the global one', async () => {
    const seen: string[] = [];
    const injected = createTrackerClient({
      apiKey: API_KEY,
      apiUrl: server.url,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    await injected.status();
    expect(seen).toEqual([`${server.url}/api/v1/cli/status`]);
  });
});
