/**
 * Dashboard sessions through the real app: without a session every dashboard and portal API
 * answers 401; the operator's session cookie, CSRF on writes made with it, sign-out and expiry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Fixture, type Harness } from '../helpers/harness.ts';
import { createPortalWorld, operatorSession } from './portal-sessions.ts';

let h: Harness;
let one: Fixture; // program 1, partner A

beforeAll(async () => {
  ({ h, one } = await createPortalWorld());
});
afterAll(async () => {
  await h.close();
});

describe('without a session every dashboard and portal API answers 401', () => {
  const p = () => one.programId;
  test.each([
    ['GET', () => '/api/v1/dashboard/session'],
    ['DELETE', () => '/api/v1/dashboard/session'],
    ['GET', () => '/api/v1/admin/programs'],
    ['POST', () => '/api/v1/admin/programs'],
    ['GET', () => `/api/v1/admin/programs/${p()}`],
    ['PATCH', () => `/api/v1/admin/programs/${p()}`],
    ['GET', () => `/api/v1/admin/programs/${p()}/stats`],
    ['GET', () => `/api/v1/admin/programs/${p()}/webhook-events`],
    ['GET', () => `/api/v1/admin/programs/${p()}/webhook-events/1`],
    ['POST', () => `/api/v1/admin/programs/${p()}/webhook-events/replay`],
    ['POST', () => `/api/v1/admin/programs/${p()}/keys`],
    ['POST', () => `/api/v1/admin/programs/${p()}/partners/${one.partnerId}/invites`],
    ['PUT', () => `/api/v1/admin/programs/${p()}/providers/stripe`],
    ['GET', () => '/api/v1/partner/session'],
    ['DELETE', () => '/api/v1/partner/session'],
    ['GET', () => '/api/v1/partner/me'],
    ['GET', () => '/api/v1/partner/stats'],
    ['GET', () => '/api/v1/partner/commissions'],
    ['GET', () => '/api/v1/partner/earnings'],
    ['GET', () => '/api/v1/partner/notifications'],
    ['POST', () => '/api/v1/partner/notifications/read'],
  ])('%s %s', async (method, path) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    for (const cookie of [
      undefined,
      'dashboard_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; portal_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      const r = await h.request(path(), { method, body, headers: cookie ? { cookie } : {} });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
  });
});

describe('dashboard session (operator)', () => {
  test('a wrong admin token opens no session', async () => {
    const r = await h.request('/api/v1/dashboard/session', { body: { token: `${ADMIN_TOKEN}x` } });
    expect(r.status).toBe(401);
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  test('the cookie is HttpOnly, SameSite=Strict, scoped to the API and expires with the session', async () => {
    const s = await operatorSession(h);
    expect(s.setCookie).toMatch(
      /^dashboard_session=[\w-]{40,}; Path=\/api\/v1; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    expect(s.csrf).toMatch(/^[\w-]{20,}$/);
  });

  test('Secure when the client used https: through TRUST_PROXY proxies that say so in X-Forwarded-Proto, never on the header alone', async () => {
    const signIn = (on: Harness, proto: string) =>
      on.request('/api/v1/dashboard/session', {
        body: { token: ADMIN_TOKEN },
        headers: { 'x-forwarded-proto': proto, 'x-forwarded-for': '203.0.113.9' },
      });
    // No trusted proxy: a client could send the header itself.
    expect((await signIn(h, 'https')).headers.get('set-cookie')).not.toMatch(/Secure/);
    const proxied = await createHarness({ TRUST_PROXY: '1' });
    try {
      expect((await signIn(proxied, 'https')).headers.get('set-cookie')).toMatch(
        /; HttpOnly; SameSite=Strict; Secure$/,
      );
      expect((await signIn(proxied, 'http')).headers.get('set-cookie')).not.toMatch(/Secure/);
    } finally {
      await proxied.close();
    }
  });

  test('the session cookie authenticates admin API calls as the token does', async () => {
    const s = await operatorSession(h);
    const r = await h.request('/api/v1/admin/programs', { headers: { cookie: s.cookie } });
    expect(r.status).toBe(200);
    expect(r.body.programs.map((x: { id: number }) => x.id)).toContain(one.programId);
  });

  test('a cross-site POST with the cookie but without the CSRF token is refused and changes nothing', async () => {
    const s = await operatorSession(h);
    const before = (await h.admin('GET', '/programs')).programs.length;
    for (const headers of [
      { cookie: s.cookie },
      { cookie: s.cookie, 'x-csrf-token': 'forged-token-value' },
      { cookie: s.cookie, origin: 'https://evil.example' },
    ] as Array<Record<string, string>>) {
      const r = await h.request('/api/v1/admin/programs', { body: { name: 'Forged' }, headers });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    // A form post (text/plain, no custom header) is refused the same way.
    const form = await h.request('/api/v1/admin/programs', {
      raw: '{"name":"Forged"}',
      headers: { cookie: s.cookie, 'content-type': 'text/plain' },
    });
    expect(form.status).toBe(403);
    expect((await h.admin('GET', '/programs')).programs.length).toBe(before);
    const ok = await h.request('/api/v1/admin/programs', {
      body: { name: 'Real' },
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    expect(ok.status).toBe(201);
  });

  test('sign-out ends the session at once', async () => {
    const s = await operatorSession(h);
    const out = await h.request('/api/v1/dashboard/session', {
      method: 'DELETE',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^dashboard_session=; Path=\/api\/v1; Max-Age=0;/);
    expect((await h.request('/api/v1/admin/programs', { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  test('a session expires after SESSION_TTL_HOURS', async () => {
    const s = await operatorSession(h);
    h.clock.now = new Date(h.clock.now.getTime() + 11.9 * 3_600_000);
    expect((await h.request('/api/v1/dashboard/session', { headers: { cookie: s.cookie } })).status).toBe(200);
    h.clock.now = new Date(h.clock.now.getTime() + 0.2 * 3_600_000);
    expect((await h.request('/api/v1/dashboard/session', { headers: { cookie: s.cookie } })).status).toBe(401);
  });
});
