/**
 * Partner sign-in limits through the real app: attempts per login past
 * ADMIN_AUTH_FAILURES_PER_MINUTE answer 429, failures are counted per client, and both are counted
 * before they are compared (concurrent guesses never slip past the limit).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

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
