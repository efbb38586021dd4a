import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { verifyPartnerPassword, type PasswordHasher } from '../../src/core/programs/partner-invites.ts';
import { bcryptHasher } from '../../src/http/password-hasher.ts';

/**
 * Dashboard and portal sessions through the real app: who can read what, CSRF on writes made with
 * a cookie, invite links, expiry and sign-out. Cookies are carried by hand, as a browser would.
 */
let h: Harness;
let one: Fixture; // program 1, partner A
let other: Fixture; // program 2, partner C
let partnerB: { id: number; code: string };
let seq = 0;

type Session = { cookie: string; csrf: string; setCookie: string };
const cookieOf = (setCookie: string) => setCookie.split(';')[0] as string;

async function operatorSession(): Promise<Session> {
  const r = await h.request('/api/v1/dashboard/session', { body: { token: ADMIN_TOKEN } });
  expect(r.status).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

async function invite(f: { programId: number }, partnerId: number): Promise<string> {
  const r = await h.admin('POST', `/programs/${f.programId}/partners/${partnerId}/invites`);
  return new URL(r.invite_url).pathname.split('/').pop() as string;
}

async function acceptInvite(token: string, password = 'correct horse battery'): Promise<Session> {
  const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

async function partnerSignIn(login: string, password: string): Promise<Session> {
  const r = await h.request('/api/v1/partner/session', { body: { login, password } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

const asPartner = (s: Session, path: string, init: { method?: string; body?: unknown; csrf?: boolean } = {}) =>
  h.request(`/api/v1/partner${path}`, {
    method: init.method,
    body: init.body,
    headers: { cookie: s.cookie, ...(init.csrf === false ? {} : { 'x-csrf-token': s.csrf }) },
  });

async function sale(f: Fixture, customer: string, amount: number, code?: string) {
  await clickAndLead(h, f, customer, code);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-${++seq}`, amount_cents: amount, customer_key: customer },
    headers: bearer(f.liveKey),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { transactionId: `tx-${seq}`, commissionId: r.body.commission_id as number };
}

beforeAll(async () => {
  h = await createHarness({ SESSION_TTL_HOURS: '12', INVITE_TTL_HOURS: '72' });
  one = await createProgramFixture(h, { commission_rate_bps: 1000 });
  other = await createProgramFixture(h, { commission_rate_bps: 2000 });
  const { partner } = await h.admin('POST', `/programs/${one.programId}/partners`, {
    code: `b${one.partnerCode}`,
    name: 'Partner B',
    email: 'b@partners.example',
  });
  partnerB = partner;
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
    const s = await operatorSession();
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
    const s = await operatorSession();
    const r = await h.request('/api/v1/admin/programs', { headers: { cookie: s.cookie } });
    expect(r.status).toBe(200);
    expect(r.body.programs.map((x: { id: number }) => x.id)).toContain(one.programId);
  });

  test('a cross-site POST with the cookie but without the CSRF token is refused and changes nothing', async () => {
    const s = await operatorSession();
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
    const s = await operatorSession();
    const out = await h.request('/api/v1/dashboard/session', {
      method: 'DELETE',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^dashboard_session=; Path=\/api\/v1; Max-Age=0;/);
    expect((await h.request('/api/v1/admin/programs', { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  test('a session expires after SESSION_TTL_HOURS', async () => {
    const s = await operatorSession();
    h.clock.now = new Date(h.clock.now.getTime() + 11.9 * 3_600_000);
    expect((await h.request('/api/v1/dashboard/session', { headers: { cookie: s.cookie } })).status).toBe(200);
    h.clock.now = new Date(h.clock.now.getTime() + 0.2 * 3_600_000);
    expect((await h.request('/api/v1/dashboard/session', { headers: { cookie: s.cookie } })).status).toBe(401);
  });
});

describe('partner invites', () => {
  test('an invite link works once, then refuses', async () => {
    const token = await invite(one, one.partnerId);
    const d = await h.request(`/api/v1/partner/invites/${token}`);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ partner_name: 'Partner One', partner_code: one.partnerCode });
    const s = await acceptInvite(token);
    expect(s.setCookie).toMatch(
      /^portal_session=[\w-]{40,}; Path=\/api\/v1\/partner; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    const again = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'another long password' } });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
    expect((await h.request(`/api/v1/partner/invites/${token}`)).status).toBe(404);
    // The first password stands: the second use changed nothing.
    expect(
      (
        await h.request('/api/v1/partner/session', {
          body: { login: one.partnerCode, password: 'another long password' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await h.request('/api/v1/partner/session', {
          body: { login: one.partnerCode, password: 'correct horse battery' },
        })
      ).status,
    ).toBe(201);
  });

  test('an invite link expires after INVITE_TTL_HOURS', async () => {
    const token = await invite(other, other.partnerId);
    h.clock.now = new Date(h.clock.now.getTime() + 73 * 3_600_000);
    const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/expired/);
  });

  test('a new invite replaces the unused one; unknown and malformed tokens are refused alike', async () => {
    const first = await invite(other, other.partnerId);
    const second = await invite(other, other.partnerId);
    expect((await h.request(`/api/v1/partner/invites/${first}`)).status).toBe(404);
    expect((await h.request(`/api/v1/partner/invites/${second}`)).status).toBe(200);
    expect((await h.request('/api/v1/partner/invites/not-a-token')).status).toBe(404);
    expect((await h.request(`/api/v1/partner/invites/${'x'.repeat(43)}`)).status).toBe(404);
  });

  test('a short password is refused and leaves the invite usable', async () => {
    const token = await invite(other, other.partnerId);
    const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'short' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.field).toBe('password');
    await acceptInvite(token, 'partner C password');
  });

  test('an invite for a partner of another program is not found', async () => {
    const r = await h.request(`/api/v1/admin/programs/${one.programId}/partners/${other.partnerId}/invites`, {
      method: 'POST',
      headers: bearer(ADMIN_TOKEN),
    });
    expect(r.status).toBe(404);
  });
});

describe('partner API: a partner sees only their own data in their own program', () => {
  let a: Session;
  let b: Session;
  let c: Session;
  beforeAll(async () => {
    a = await acceptInvite(await invite(one, one.partnerId), 'partner A password');
    b = await acceptInvite(await invite(one, partnerB.id), 'partner B password');
    c = await partnerSignIn(other.partnerCode, 'partner C password');
    await sale(one, 'cust-a', 10_000);
    const sb = await sale(one, 'cust-b', 20_000, partnerB.code);
    await sale(other, 'cust-c', 30_000);
    const r = await h.request('/api/v1/track/refund', {
      body: { transaction_id: sb.transactionId, refund_amount_cents: 5_000, refund_reason: 'damaged in transit' },
      headers: bearer(one.liveKey),
    });
    expect(r.body.status).toBe('refunded');
  });

  test('sign-in by code or email; a wrong password or unknown login is 401', async () => {
    expect(
      (
        await h.request('/api/v1/partner/session', {
          body: { login: 'b@partners.example', password: 'partner B password' },
        })
      ).status,
    ).toBe(201);
    expect(
      (await h.request('/api/v1/partner/session', { body: { login: partnerB.code, password: 'partner A password' } }))
        .status,
    ).toBe(401);
    expect(
      (await h.request('/api/v1/partner/session', { body: { login: 'nobody', password: 'partner A password' } }))
        .status,
    ).toBe(401);
  });

  test('an unknown login costs what a wrong password costs: the same bcrypt check at the same cost', async () => {
    // The real hasher, observed: which hash each sign-in is checked against.
    const checked: string[] = [];
    const observed: PasswordHasher = {
      ...bcryptHasher,
      verify: (password, hash) => {
        checked.push(hash);
        return bcryptHasher.verify(password, hash);
      },
    };
    const deps = h.ctx.deps();
    await expect(verifyPartnerPassword(deps, observed, partnerB.code, 'not the password')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    await expect(verifyPartnerPassword(deps, observed, 'nobody-at-all', 'not the password')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(checked).toHaveLength(2);
    // `$2b$11$…`: algorithm and cost of the partner's stored hash and of the stand-in.
    const [real, standIn] = checked.map((hash) => hash.split('$').slice(1, 3).join('$'));
    expect(standIn).toBe(real);
    expect(checked[1]).not.toBe(checked[0]);
  });

  test("profile and referral link are the partner's own", async () => {
    const r = await asPartner(a, '/me');
    expect(r.status).toBe(200);
    expect(r.body.partner).toEqual({ id: one.partnerId, code: one.partnerCode, name: 'Partner One', email: null });
    expect(r.body.program.id).toBe(one.programId);
    expect(r.body.referral_link).toContain(`aff=${one.partnerCode}`);
    expect(r.body.coupon_codes).toEqual([]);
  });

  test('the profile lists the partner’s own coupon codes in use, never another partner’s or a retired one', async () => {
    await h.admin('POST', `/programs/${one.programId}/partners/${one.partnerId}/codes`, {
      code: 'AlphaCast',
      provider_ids: ['promo_1NotShown'],
    });
    const retired = await h.admin('POST', `/programs/${one.programId}/partners/${one.partnerId}/codes`, {
      code: 'OLDCODE',
    });
    await h.admin('POST', `/programs/${one.programId}/partner-codes/${retired.code.id}/disable`);
    await h.admin('POST', `/programs/${one.programId}/partners/${partnerB.id}/codes`, { code: 'BETACAST' });
    expect((await asPartner(a, '/me')).body.coupon_codes).toEqual(['AlphaCast']);
    expect((await asPartner(b, '/me')).body.coupon_codes).toEqual(['BETACAST']);
  });

  test('commission pages by keyset (?before=<id>): only older rows, the total of the whole list', async () => {
    const all = (await asPartner(a, '/commissions?limit=200')).body;
    const newest = all.commissions[0].id as number;
    const older = (await asPartner(a, `/commissions?before=${newest}`)).body;
    expect(older.commissions.map((c: { id: number }) => c.id)).toEqual(
      all.commissions.slice(1).map((c: { id: number }) => c.id),
    );
    expect(older.total).toBe(all.total);
    expect((await asPartner(a, `/commissions?before=${newest + 1}`)).body.commissions).toEqual(all.commissions);
    // Keyset and offset are two ways to a page: both at once is refused.
    for (const list of ['/commissions', '/notifications']) {
      const both = await asPartner(a, `${list}?before=${newest}&offset=1`);
      expect(both.status, list).toBe(400);
      expect(both.body.error, list).toMatchObject({
        code: 'invalid_request',
        details: { issues: [{ field: 'offset' }] },
      });
    }
  });

  test('the profile shows the partner’s group and where they stand on its tiers; another partner sees neither', async () => {
    expect((await asPartner(a, '/me')).body).toMatchObject({ group: null, tier: null });
    const { group } = await h.admin('POST', `/programs/${one.programId}/partner-groups`, {
      name: 'Tiered',
      reward_rules: {
        tiers: {
          metric: 'sales',
          period: 'calendar_month',
          steps: [{ from: 5, reward: { type: 'percent', bps: 2000 } }],
        },
      },
    });
    await h.admin('PUT', `/programs/${one.programId}/partners/${one.partnerId}/group`, { group_id: group.id });
    const { sales } = await h.admin('GET', `/programs/${one.programId}/sales?partner_id=${one.partnerId}&limit=500`);
    const since = Date.UTC(h.clock.now.getUTCFullYear(), h.clock.now.getUTCMonth(), 1);
    const inMonth = sales.filter((s: { received_at: string }) => Date.parse(s.received_at) >= since);
    const me = (await asPartner(a, '/me')).body;
    expect(me.group).toEqual({ id: group.id, name: 'Tiered' });
    expect(me.tier).toMatchObject({
      metric: 'sales',
      period: 'calendar_month',
      since: new Date(since).toISOString(),
      steps: [5],
      sales: inMonth.length,
    });
    expect((await asPartner(b, '/me')).body).toMatchObject({ group: null, tier: null });
    await h.admin('PUT', `/programs/${one.programId}/partners/${one.partnerId}/group`, { group_id: null });
  });

  test('commissions, earnings, notifications and stats hold nothing of partner B or of another program', async () => {
    const ca = await asPartner(a, '/commissions');
    expect(ca.body.total).toBe(1);
    expect(ca.body.commissions[0]).toMatchObject({ amount_cents: 1000, status: 'pending', reason: null });
    const cb = await asPartner(b, '/commissions');
    expect(cb.body.commissions).toHaveLength(1);
    expect(cb.body.commissions[0]).toMatchObject({
      amount_cents: 2000,
      reversed_cents: 500,
      net_cents: 1500,
      status: 'refunded',
      reason: 'damaged in transit',
    });
    const cc = await asPartner(c, '/commissions');
    expect(cc.body.commissions.map((x: { amount_cents: number }) => x.amount_cents)).toEqual([6000]);

    expect((await asPartner(a, '/notifications')).body).toMatchObject({ total: 0, unread_count: 0 });
    const nb = await asPartner(b, '/notifications');
    expect(nb.body.unread_count).toBe(1);
    expect(nb.body.notifications[0].payload.refund_reason).toBe('damaged in transit');

    const sa = await asPartner(a, '/stats?days=7');
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    expect([sum(sa.body.clicks), sum(sa.body.leads), sum(sa.body.sales)]).toEqual([1, 1, 1]);
    expect(sa.body.revenue_cents).toEqual({ USD: expect.any(Array) });
    expect(sum(sa.body.revenue_cents.USD)).toBe(10_000);
    expect(sum((await asPartner(b, '/stats?days=7')).body.commission_cents.USD)).toBe(1500);

    expect((await asPartner(a, '/earnings')).body).toEqual({ balances: [], payouts: [] });
  });

  test('a partner session opens no admin API and no operator session opens the partner API', async () => {
    const forged = a.cookie.replace('portal_session=', 'dashboard_session=');
    expect(
      (await h.request(`/api/v1/admin/programs/${one.programId}/commissions`, { headers: { cookie: forged } })).status,
    ).toBe(401);
    expect(
      (await h.request(`/api/v1/admin/programs/${one.programId}/commissions`, { headers: { cookie: a.cookie } }))
        .status,
    ).toBe(401);
    const op = await operatorSession();
    expect(
      (
        await h.request('/api/v1/partner/me', {
          headers: { cookie: op.cookie.replace('dashboard_session=', 'portal_session=') },
        })
      ).status,
    ).toBe(401);
  });

  test("marking notifications read needs the CSRF token and touches only the partner's own", async () => {
    const nb = await asPartner(b, '/notifications');
    const id = nb.body.notifications[0].id as number;
    expect((await asPartner(b, '/notifications/read', { body: { ids: [id] }, csrf: false })).status).toBe(403);
    expect((await asPartner(a, '/notifications/read', { body: { ids: [id] } })).body.unread_count).toBe(0);
    expect((await asPartner(b, '/notifications')).body.unread_count).toBe(1);
    expect((await asPartner(b, '/notifications/read', { body: { ids: [id] } })).body.unread_count).toBe(0);
  });

  test("approval and payout show in the partner's balance and payouts", async () => {
    const cid = (await asPartner(a, '/commissions')).body.commissions[0].id;
    await h.admin('POST', `/programs/${one.programId}/commissions/${cid}/approve`);
    expect((await asPartner(a, '/earnings')).body.balances).toEqual([{ currency: 'USD', balance_cents: 1000 }]);
    const { payout } = await h.admin('POST', `/programs/${one.programId}/partners/${one.partnerId}/payouts`, {
      currency: 'USD',
      amount_cents: 1000,
    });
    await h.admin('POST', `/programs/${one.programId}/payouts/${payout.id}/pay`);
    const e = await asPartner(a, '/earnings');
    expect(e.body.balances).toEqual([{ currency: 'USD', balance_cents: 0 }]);
    expect(e.body.payouts).toMatchObject([
      { id: payout.id, amount_cents: 1000, commissions_cents: 1000, netted_cents: 0, status: 'paid', currency: 'USD' },
    ]);
    expect((await asPartner(a, '/commissions')).body.commissions[0]).toMatchObject({
      id: cid,
      status: 'paid',
      payout_id: payout.id,
    });
    expect((await asPartner(b, '/earnings')).body).toEqual({ balances: [], payouts: [] });
  });

  test('partner sign-out ends the portal session', async () => {
    const s = await partnerSignIn(other.partnerCode, 'partner C password');
    expect((await asPartner(s, '/session', { method: 'DELETE' })).status).toBe(200);
    expect((await asPartner(s, '/me')).status).toBe(401);
  });
});

describe('admin API for the dashboard', () => {
  test("overview series, webhook event filters and one event's payload", async () => {
    const stats = await h.admin('GET', `/programs/${one.programId}/stats?days=3`);
    expect(stats.days).toHaveLength(3);
    expect(stats.sales.reduce((s: number, x: number) => s + x, 0)).toBe(2);
    expect(stats.revenue_cents.USD.reduce((s: number, x: number) => s + x, 0)).toBe(30_000);
    const filtered = await h.request(`/api/v1/admin/programs/${one.programId}/clicks?provider=stripe`, {
      headers: bearer(ADMIN_TOKEN),
    });
    expect(filtered.status).toBe(400);
    expect(
      (await h.admin('GET', `/programs/${one.programId}/webhook-events?provider=stripe&status=failed`))[
        'webhook-events'
      ],
    ).toEqual([]);
    const missing = await h.request(`/api/v1/admin/programs/${one.programId}/webhook-events/999999`, {
      headers: bearer(ADMIN_TOKEN),
    });
    expect(missing.status).toBe(404);
  });
});

describe('partner sign-in attempts are limited per login and failures per client', () => {
  test('past ADMIN_AUTH_FAILURES_PER_MINUTE attempts on a login it answers 429, even to the right password', async () => {
    const limited = await createHarness({ ADMIN_AUTH_FAILURES_PER_MINUTE: '3' });
    try {
      const f = await createProgramFixture(limited);
      const { invite_url } = await limited.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
      const token = new URL(invite_url).pathname.split('/').pop();
      expect(
        (await limited.request(`/api/v1/partner/invites/${token}`, { body: { password: 'the right password' } }))
          .status,
      ).toBe(201);
      for (let i = 0; i < 3; i++)
        expect(
          (
            await limited.request('/api/v1/partner/session', {
              body: { login: f.partnerCode, password: `wrong password ${i}` },
            })
          ).status,
        ).toBe(401);
      const r = await limited.request('/api/v1/partner/session', {
        body: { login: f.partnerCode, password: 'the right password' },
      });
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('partner sign-in limits are counted before they are compared', () => {
  const LIMIT = 10;
  let limited: Harness;
  let f: Fixture;
  const signIn = (login: string, password: string, address: string) =>
    limited.request('/api/v1/partner/session', {
      body: { login, password },
      headers: { 'x-forwarded-for': address },
    });
  const statuses = (rs: Array<{ status: number }>) =>
    rs.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

  beforeAll(async () => {
    limited = await createHarness({ ADMIN_AUTH_FAILURES_PER_MINUTE: String(LIMIT), TRUST_PROXY: '1' });
    f = await createProgramFixture(limited);
    const { invite_url } = await limited.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
    const token = new URL(invite_url).pathname.split('/').pop();
    const accepted = await limited.request(`/api/v1/partner/invites/${token}`, {
      body: { password: 'the right password' },
    });
    expect(accepted.status).toBe(201);
  });
  afterAll(() => limited.close());

  test('40 concurrent wrong passwords for one login from one address: exactly the limit are checked (401), the rest 429', async () => {
    const rs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signIn(f.partnerCode, `wrong password ${i}`, '203.0.113.10')),
    );
    expect(statuses(rs)).toEqual({ 401: LIMIT, 429: 40 - LIMIT });
    expect(rs.find((r) => r.status === 429)!.body.error).toMatchObject({
      code: 'rate_limited',
      retry_after_seconds: expect.any(Number),
    });
    // The login's budget is spent from every address: guessing cannot move to another address.
    expect((await signIn(f.partnerCode, 'the right password', '198.51.100.99')).status).toBe(429);
  });

  test("the partner's right password passes from an address blocked by others' failures; the address's wrong ones answer 429", async () => {
    const g = await createProgramFixture(limited);
    const { invite_url } = await limited.admin('POST', `/programs/${g.programId}/partners/${g.partnerId}/invites`);
    const token = new URL(invite_url).pathname.split('/').pop();
    expect(
      (await limited.request(`/api/v1/partner/invites/${token}`, { body: { password: 'partner g password' } })).status,
    ).toBe(201);
    const shared = '203.0.113.20';
    // Others behind the same address fail on other logins, concurrently: counted exactly.
    const others = await Promise.all(
      Array.from({ length: 14 }, (_, i) => signIn(`someone-${i}@example.com`, 'guess', shared)),
    );
    expect(statuses(others)).toEqual({ 401: LIMIT, 429: 4 });

    const partner = await signIn(g.partnerCode, 'partner g password', shared);
    expect(partner.status, JSON.stringify(partner.body)).toBe(201);
    expect(partner.headers.get('set-cookie')).toMatch(/^portal_session=/);
    // A wrong password from the blocked address is refused as the address's failure...
    const wrong = await signIn(g.partnerCode, 'not it', shared);
    expect(wrong.status).toBe(429);
    expect(wrong.body.error.message).toMatch(/from this client/);
    // ...while another address's failure is its own.
    expect((await signIn(g.partnerCode, 'not it', '198.51.100.7')).status).toBe(401);
  });
});
