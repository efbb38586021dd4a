/** The server client against a stub answering failures: every one resolves with ok false, none throws. */
import { describe, expect, test } from 'vitest';
import { createTrackerClient } from '../../tracker/src/client.ts';
import { findClosedPort } from './test-http-server.ts';
import { API_KEY, useStubbedClient } from './stubbed-client.ts';

const stub = useStubbedClient();

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
    stub.server().on('POST', '/api/v1/track/sale', { status, body });
    const res = await stub.client().trackSale({ customerExternalId: 'user_42', amount: 4900, invoiceId: 'in_1' });
    expect(res.ok).toBe(false);
    expect(res.status).toBe(status);
    expect(res.data).toBeNull();
    expect(res.code).toBe(code);
    expect(res.error).toContain(code);
  });

  test('the message, hint and retry_after_seconds are kept in error', async () => {
    stub.server().on('POST', '/api/v1/track/refund', {
      status: 429,
      body: { error: { code: 'rate_limited', message: 'slow down', retry_after_seconds: 30 } },
    });
    const limited = await stub.client().trackRefund({ invoiceId: 'in_1' });
    expect(limited.error).toBe('rate_limited: slow down (retry after 30s)');
    stub.server().on('GET', '/api/v1/cli/status', {
      status: 401,
      body: { error: { code: 'api_key_rotation_required', message: 'key retired', hint: 'create a new key' } },
    });
    const retired = await stub.client().status();
    expect(retired.error).toBe('api_key_rotation_required: key retired (create a new key)');
  });

  test('a non-JSON error body (a proxy page) reports the HTTP status', async () => {
    stub.server().on('POST', '/api/v1/track/lead', { status: 502, body: '<html>bad gateway</html>' });
    const res = await stub.client().trackLead({ customerExternalId: 'user_42' });
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
    stub.server().on('POST', '/api/v1/track/click', () => new Promise(() => {}));
    const impatient = createTrackerClient({ apiKey: API_KEY, apiUrl: stub.server().url, timeoutMs: 200 });
    const res = await impatient.trackClick({ affiliateUrl: 'https://shop.example/?aff=p1' });
    expect(res).toEqual({ ok: false, status: 0, data: null, error: 'request timed out after 200 ms', code: undefined });
  });

  test('an injected fetch is used instead of the global one', async () => {
    const seen: string[] = [];
    const injected = createTrackerClient({
      apiKey: API_KEY,
      apiUrl: stub.server().url,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    await injected.status();
    expect(seen).toEqual([`${stub.server().url}/api/v1/cli/status`]);
  });
});
