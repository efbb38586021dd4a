import { beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  useHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createProgramFixture(h);
});

describe('GET /api/v1/cli/status', () => {
  test('200 with program health for a live key', async () => {
    const r = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      program: { id: f.programId, name: 'Acme' },
      key_mode: 'live',
      activity: {
        clicks: { count: 0, last_at: null },
        leads: { count: 0 },
        sales: { count: 0 },
        refunds: { count: 0 },
      },
      connected_providers: [],
    });
  });

  test('reports the key mode of a test key', async () => {
    expect((await h.request('/api/v1/cli/status', { headers: bearer(f.testKey) })).body.key_mode).toBe('test');
  });

  test.each([
    ['no header', {}],
    ['malformed header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['unknown key', { authorization: 'Bearer trk_live_notarealkeyatall00000' }],
  ])('401 unauthorized platform envelope: %s', async (_l, headers) => {
    const r = await h.request('/api/v1/cli/status', { headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      data: null,
      error: { status: 401, name: 'UnauthorizedError', message: expect.any(String), details: {}, code: 'unauthorized' },
    });
  });

  test('retired key: 401 api_key_rotation_required typed envelope with hint and docs_url', async () => {
    const k = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    expect((await h.request('/api/v1/cli/status', { headers: bearer(k.key) })).status).toBe(200);
    await h.admin('POST', `/programs/${f.programId}/keys/${k.id}/retire`, {});
    const r = await h.request('/api/v1/cli/status', { headers: bearer(k.key) });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: {
        code: 'api_key_rotation_required',
        message: expect.any(String),
        hint: expect.any(String),
        docs_url: expect.stringMatching(/^https?:\/\/[^/]+\/docs$/),
      },
    });
  });

  test('rotated key inside its grace period: accepted with a warning and Deprecation/Sunset headers; refused after rotate_by', async () => {
    const k = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    const rotated = await h.admin('POST', `/programs/${f.programId}/keys/${k.id}/rotate`, { grace_days: 7 });
    expect(rotated.key).toMatch(/^trk_live_/);
    const r = await h.request('/api/v1/cli/status', { headers: bearer(k.key) });
    expect(r.status).toBe(200);
    expect(r.body.warnings).toEqual([
      { code: 'api_key_rotation_required', message: expect.any(String), rotate_by: rotated.rotate_by },
    ]);
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.headers.get('sunset')).toBe(new Date(rotated.rotate_by).toUTCString());
    expect((await h.request('/api/v1/cli/status', { headers: bearer(rotated.key) })).status).toBe(200);
    h.clock.advanceDays(8);
    try {
      const late = await h.request('/api/v1/cli/status', { headers: bearer(k.key) });
      expect(late.status).toBe(401);
      expect(late.body.error.code).toBe('api_key_rotation_required');
    } finally {
      h.clock.advanceDays(-8);
    }
  });

  test('keys are stored hashed: listing keys never shows the key or its hash', async () => {
    const list = await h.admin('GET', `/programs/${f.programId}/api-keys`);
    const text = JSON.stringify(list);
    expect(text).not.toContain(f.liveKey);
    expect(text).not.toContain('key_hash');
    expect(list['api-keys'][0]).toMatchObject({
      prefix: expect.stringMatching(/^trk_(live|test)_/),
      mode: expect.any(String),
    });
  });
});

describe('HTTP basics', () => {
  const sale = (init: Parameters<Harness['request']>[1]) =>
    h.request('/api/v1/track/sale', { ...init, headers: { ...bearer(f.liveKey), ...init?.headers } });
  test('malformed JSON → 400 invalid_request', async () => {
    const r = await sale({ raw: '{"transaction_id": ' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });
  test('a JSON array body → 400 invalid_request', async () => {
    expect((await sale({ raw: '[1,2]' })).status).toBe(400);
  });
  test('wrong content type → 415', async () => {
    const r = await sale({ raw: 'transaction_id=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ data: null, error: { code: 'unsupported_media_type', status: 415 } });
  });
  test('body over the limit → 413', async () => {
    const r = await sale({ raw: JSON.stringify({ transaction_id: 'x', pad: 'p'.repeat(70_000) }) });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });
  test('unknown route → 404 JSON platform envelope', async () => {
    const r = await h.request('/api/v1/nope');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ data: null, error: { code: 'not_found', status: 404 } });
  });
  test('every response carries a request id (echoed when given)', async () => {
    const r = await h.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
  });
  test('GET /healthz and /readyz', async () => {
    expect((await h.request('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await h.request('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', database: true, queue_ok: true });
  });
});

describe('admin API', () => {
  test('requires the admin token', async () => {
    expect((await h.request('/api/v1/admin/programs')).status).toBe(401);
    expect(
      (await h.request('/api/v1/admin/programs', { headers: { authorization: 'Bearer wrong-token-wrong-token' } }))
        .status,
    ).toBe(401);
    expect(
      (await h.request('/api/v1/admin/programs', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
    ).toBe(200);
  });
  test('program config is validated and updatable', async () => {
    const bad = await h.request('/api/v1/admin/programs', {
      body: { name: 'x', commission_rate_bps: 20_000 },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bad.status).toBe(400);
    const { program } = await h.admin('PATCH', `/programs/${f.programId}`, {
      cookie_duration_days: 90,
      domain: 'Shop.Example',
    });
    expect(program).toMatchObject({ cookie_duration_days: 90, domain: 'shop.example' });
  });
  test('provider secrets are never returned', async () => {
    const r = await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, {
      signing_secret: 'whsec_supersecretvalue',
    });
    expect(JSON.stringify(r)).not.toContain('supersecret');
    expect(r.webhook_url).toContain(`/api/v1/webhooks/stripe/${f.programId}`);
    const status = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
    expect(status.body.connected_providers).toEqual([{ provider: 'stripe', connected_at: expect.any(String) }]);
    expect(JSON.stringify(status.body)).not.toContain('supersecret');
  });
});

describe('admin writes take effect at once in the process that made them', () => {
  test('PATCH /admin/programs/:id rate_limit_per_minute applies to the next request (the key cache held the old limit)', async () => {
    const g = await createProgramFixture(h, { rate_limit_per_minute: 1000 });
    const refund = () =>
      h.request('/api/v1/track/refund', { body: { transaction_id: 'none' }, headers: bearer(g.liveKey) });
    expect((await refund()).status).toBe(404);
    await h.admin('PATCH', `/programs/${g.programId}`, { rate_limit_per_minute: 1 });
    // The counter of this minute already holds one request: the new limit of 1 refuses the next.
    const limited = await refund();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
  });
});
