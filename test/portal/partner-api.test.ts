/**
 * The partner API through the real app, with portal sessions: a partner sees only their own data
 * in their own program; and the admin API the dashboard reads.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, type Fixture, type Harness } from '../helpers/harness.ts';
import { verifyPartnerPassword, type PasswordHasher } from '../../src/core/programs/partner-invites.ts';
import { bcryptHasher } from '../../src/http/password-hasher.ts';
import {
  acceptInvite,
  asPartner,
  createPortalWorld,
  invite,
  operatorSession,
  partnerSignIn,
  sale,
  type Session,
} from './portal-sessions.ts';

let h: Harness;
let one: Fixture; // program 1, partner A
let other: Fixture; // program 2, partner C
let partnerB: { id: number; code: string };

beforeAll(async () => {
  ({ h, one, other, partnerB } = await createPortalWorld());
});
afterAll(async () => {
  await h.close();
});

describe('partner API: a partner sees only their own data in their own program', () => {
  let a: Session;
  let b: Session;
  let c: Session;
  beforeAll(async () => {
    a = await acceptInvite(h, await invite(h, one, one.partnerId), 'partner A password');
    b = await acceptInvite(h, await invite(h, one, partnerB.id), 'partner B password');
    c = await acceptInvite(h, await invite(h, other, other.partnerId), 'partner C password');
    await sale(h, one, 'cust-a', 10_000);
    const sb = await sale(h, one, 'cust-b', 20_000, partnerB.code);
    await sale(h, other, 'cust-c', 30_000);
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
    const r = await asPartner(h, a, '/me');
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
    expect((await asPartner(h, a, '/me')).body.coupon_codes).toEqual(['AlphaCast']);
    expect((await asPartner(h, b, '/me')).body.coupon_codes).toEqual(['BETACAST']);
  });

  test('commission pages by keyset (?before=<id>): only older rows, the total of the whole list', async () => {
    const all = (await asPartner(h, a, '/commissions?limit=200')).body;
    const newest = all.commissions[0].id as number;
    const older = (await asPartner(h, a, `/commissions?before=${newest}`)).body;
    expect(older.commissions.map((c: { id: number }) => c.id)).toEqual(
      all.commissions.slice(1).map((c: { id: number }) => c.id),
    );
    expect(older.total).toBe(all.total);
    expect((await asPartner(h, a, `/commissions?before=${newest + 1}`)).body.commissions).toEqual(all.commissions);
    // Keyset and offset are two ways to a page: both at once is refused.
    for (const list of ['/commissions', '/notifications']) {
      const both = await asPartner(h, a, `${list}?before=${newest}&offset=1`);
      expect(both.status, list).toBe(400);
      expect(both.body.error, list).toMatchObject({
        code: 'invalid_request',
        details: { issues: [{ field: 'offset' }] },
      });
    }
  });

  test('the profile shows the partner’s group and where they stand on its tiers; another partner sees neither', async () => {
    expect((await asPartner(h, a, '/me')).body).toMatchObject({ group: null, tier: null });
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
    const me = (await asPartner(h, a, '/me')).body;
    expect(me.group).toEqual({ id: group.id, name: 'Tiered' });
    expect(me.tier).toMatchObject({
      metric: 'sales',
      period: 'calendar_month',
      since: new Date(since).toISOString(),
      steps: [5],
      sales: inMonth.length,
    });
    expect((await asPartner(h, b, '/me')).body).toMatchObject({ group: null, tier: null });
    await h.admin('PUT', `/programs/${one.programId}/partners/${one.partnerId}/group`, { group_id: null });
  });

  test('commissions, earnings, notifications and stats hold nothing of partner B or of another program', async () => {
    const ca = await asPartner(h, a, '/commissions');
    expect(ca.body.total).toBe(1);
    expect(ca.body.commissions[0]).toMatchObject({ amount_cents: 1000, status: 'pending', reason: null });
    const cb = await asPartner(h, b, '/commissions');
    expect(cb.body.commissions).toHaveLength(1);
    expect(cb.body.commissions[0]).toMatchObject({
      amount_cents: 2000,
      reversed_cents: 500,
      net_cents: 1500,
      status: 'refunded',
      reason: 'damaged in transit',
    });
    const cc = await asPartner(h, c, '/commissions');
    expect(cc.body.commissions.map((x: { amount_cents: number }) => x.amount_cents)).toEqual([6000]);

    expect((await asPartner(h, a, '/notifications')).body).toMatchObject({ total: 0, unread_count: 0 });
    const nb = await asPartner(h, b, '/notifications');
    expect(nb.body.unread_count).toBe(1);
    expect(nb.body.notifications[0].payload.refund_reason).toBe('damaged in transit');

    const sa = await asPartner(h, a, '/stats?days=7');
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    expect([sum(sa.body.clicks), sum(sa.body.leads), sum(sa.body.sales)]).toEqual([1, 1, 1]);
    expect(sa.body.revenue_cents).toEqual({ USD: expect.any(Array) });
    expect(sum(sa.body.revenue_cents.USD)).toBe(10_000);
    expect(sum((await asPartner(h, b, '/stats?days=7')).body.commission_cents.USD)).toBe(1500);

    expect((await asPartner(h, a, '/earnings')).body).toEqual({
      balances: [],
      payouts: [],
      payout_requests: { allowed: false, minimum_cents: {} },
    });
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
    const op = await operatorSession(h);
    expect(
      (
        await h.request('/api/v1/partner/me', {
          headers: { cookie: op.cookie.replace('dashboard_session=', 'portal_session=') },
        })
      ).status,
    ).toBe(401);
  });

  test("marking notifications read needs the CSRF token and touches only the partner's own", async () => {
    const nb = await asPartner(h, b, '/notifications');
    const id = nb.body.notifications[0].id as number;
    expect((await asPartner(h, b, '/notifications/read', { body: { ids: [id] }, csrf: false })).status).toBe(403);
    expect((await asPartner(h, a, '/notifications/read', { body: { ids: [id] } })).body.unread_count).toBe(0);
    expect((await asPartner(h, b, '/notifications')).body.unread_count).toBe(1);
    expect((await asPartner(h, b, '/notifications/read', { body: { ids: [id] } })).body.unread_count).toBe(0);
  });

  test("approval and payout show in the partner's balance and payouts", async () => {
    const cid = (await asPartner(h, a, '/commissions')).body.commissions[0].id;
    await h.admin('POST', `/programs/${one.programId}/commissions/${cid}/approve`);
    expect((await asPartner(h, a, '/earnings')).body.balances).toEqual([{ currency: 'USD', balance_cents: 1000 }]);
    const { payout } = await h.admin('POST', `/programs/${one.programId}/partners/${one.partnerId}/payouts`, {
      currency: 'USD',
      amount_cents: 1000,
    });
    await h.admin('POST', `/programs/${one.programId}/payouts/${payout.id}/pay`);
    const e = await asPartner(h, a, '/earnings');
    expect(e.body.balances).toEqual([{ currency: 'USD', balance_cents: 0 }]);
    expect(e.body.payouts).toMatchObject([
      { id: payout.id, amount_cents: 1000, commissions_cents: 1000, netted_cents: 0, status: 'paid', currency: 'USD' },
    ]);
    expect((await asPartner(h, a, '/commissions')).body.commissions[0]).toMatchObject({
      id: cid,
      status: 'paid',
      payout_id: payout.id,
    });
    expect((await asPartner(h, b, '/earnings')).body).toEqual({
      balances: [],
      payouts: [],
      payout_requests: { allowed: false, minimum_cents: {} },
    });
  });

  test('partner sign-out ends the portal session', async () => {
    const s = await partnerSignIn(h, other.partnerCode, 'partner C password');
    expect((await asPartner(h, s, '/session', { method: 'DELETE' })).status).toBe(200);
    expect((await asPartner(h, s, '/me')).status).toBe(401);
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
