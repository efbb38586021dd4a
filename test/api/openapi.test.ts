/**
 * The OpenAPI document: served at /openapi.json, valid OpenAPI 3.1, one operation for every route
 * the app registers (and none for a route that does not exist), both error envelopes; and the
 * contract check every other test runs on its responses rejects what the document does not say.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { ERROR_CODES } from '../../src/core/shared/errors.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { openApiPath } from '../../src/http/openapi/operation.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { assertDocumentedResponse } from '../helpers/contract.ts';
import { useHarness } from '../helpers/harness.ts';

const h = useHarness();

/** CORS preflight is HTTP plumbing every /api/v1/track route answers, not an operation. */
const NOT_OPERATIONS = new Set(['OPTIONS /api/v1/track/**']);

describe('GET /openapi.json', () => {
  test('is a valid OpenAPI 3.1 document (maintained validator)', async () => {
    const r = await h.request('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(r.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('every route the app registers is documented, and every documented operation is a route', () => {
    const app = createHttpApp(h.ctx);
    const registered = app['~routes']
      .map((r) => `${r.method ?? 'ALL'} ${r.route}`)
      .filter((r) => !NOT_OPERATIONS.has(r))
      .sort();
    const documented = OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(registered.length).toBeGreaterThan(60);
    expect(documented.sort()).toEqual(registered);
  });

  test('operations have unique ids, a tag, a summary and security declared; keyed routes name their scheme', async () => {
    const doc = (await h.request('/openapi.json')).body;
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops).toHaveLength(OPERATIONS.length);
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    for (const { op } of ops) expect(op.summary && op.tags?.length && op.security).toBeTruthy();
    expect(doc.paths['/api/v1/track/sale'].post.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/api/v1/admin/programs'].get.security).toEqual([{ adminToken: [] }, { operatorSession: [] }]);
    expect(doc.paths['/api/v1/admin/programs'].post.security).toEqual([
      { adminToken: [] },
      { operatorSession: [], csrfToken: [] },
    ]);
    expect(doc.paths['/api/v1/partner/me'].get.security).toEqual([{ partnerSession: [] }]);
    expect(doc.paths['/api/v1/partner/notifications/read'].post.security).toEqual([
      { partnerSession: [], csrfToken: [] },
    ]);
    expect(doc.paths['/api/v1/partner/session'].post.security).toEqual([{}]);
    expect(doc.paths['/metrics'].get.security).toEqual([{ metricsToken: [] }]);
    expect(doc.paths['/mcp'].post.security).toEqual([{ mcpToken: [] }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'adminToken',
      'apiKey',
      'creemSignature',
      'csrfToken',
      'lemonSqueezySignature',
      'mcpToken',
      'metricsToken',
      'operatorSession',
      'paddleSignature',
      'partnerSession',
      'sepayApiKey',
      'sepaySignature',
      'standardWebhookSignature',
      'stripeSignature',
    ]);
    // Every provider's signature, and a server to call (the document's own when none is configured).
    expect(doc.paths[openApiPath('/api/v1/webhooks/:provider/:programId')].post.security).toHaveLength(7);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(
      doc.paths[openApiPath('/api/v1/webhooks/:provider/:programId')].post.parameters.map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(['provider', 'programId']);
  });

  test("both error envelopes with their codes: the sale route's 401 is platform or typed, its 409 names duplicate_transaction", async () => {
    const doc = (await h.request('/openapi.json')).body;
    const sale = doc.paths['/api/v1/track/sale'].post.responses;
    const schema401 = sale['401'].content['application/json'].schema;
    expect(schema401.anyOf.map((s: any) => s.properties.error.properties.code.enum)).toEqual([
      ['unauthorized'],
      ['api_key_rotation_required'],
    ]);
    expect(sale['409'].content['application/json'].schema.properties.error.properties.code.enum).toEqual([
      'duplicate_transaction',
    ]);
    expect(sale['429'].content['application/json'].schema.properties.error.properties.code.enum).toEqual([
      'rate_limited',
    ]);
    expect(sale['200'].content['application/json'].example).toMatchObject({ success: true });
    const described = JSON.stringify(doc.components.schemas);
    for (const code of ERROR_CODES) expect(described).toContain(`"${code}"`);
    expect(doc.info.description).toContain('| `api_key_rotation_required` | 401 | typed |');
  });
});

describe('the contract check', () => {
  const headers = new Headers({ 'content-type': 'application/json' });
  test('rejects a body the document does not describe for its route and status', () => {
    expect(() =>
      assertDocumentedResponse('POST', '/api/v1/track/sale', {
        status: 200,
        headers,
        body: { success: true, sale_id: '1' },
      }),
    ).toThrow(/sale_id|does not match/);
    expect(() =>
      assertDocumentedResponse('POST', '/api/v1/track/refund', {
        status: 200,
        headers,
        body: { success: true, status: 'refunded', deductionAmount: 1, commission_id: 1, extra: 1 },
      }),
    ).toThrow(/does not match/);
  });
  test('rejects an undocumented status, content type or error code', () => {
    expect(() => assertDocumentedResponse('GET', '/healthz', { status: 418, headers, body: {} })).toThrow(
      /status not documented/,
    );
    expect(() =>
      assertDocumentedResponse('GET', '/healthz', {
        status: 200,
        headers: new Headers({ 'content-type': 'text/plain' }),
        body: 'ok',
      }),
    ).toThrow(/content type/);
    const notFound = {
      data: null,
      error: { status: 404, name: 'NotFoundError', message: 'x', details: {}, code: 'not_found' },
    };
    expect(() =>
      assertDocumentedResponse('POST', '/api/v1/track/sale', { status: 404, headers, body: notFound }),
    ).toThrow(/status not documented/);
    const wrongCode = {
      data: null,
      error: { status: 409, name: 'ConflictError', message: 'x', details: {}, code: 'no_attribution' },
    };
    expect(() =>
      assertDocumentedResponse('POST', '/api/v1/track/sale', { status: 409, headers, body: wrongCode }),
    ).toThrow(/does not match/);
  });
  test("accepts a documented response, and h3's not_found for a path no route has", () => {
    assertDocumentedResponse('POST', '/api/v1/track/sale', {
      status: 200,
      headers,
      body: { success: true, sale_id: 1, commission_id: 2, message: 'ok' },
    });
    assertDocumentedResponse('GET', '/nope', {
      status: 404,
      headers,
      body: { data: null, error: { status: 404, name: 'NotFoundError', message: 'x', details: {}, code: 'not_found' } },
    });
  });
});
