/**
 * Partner invite links through the real app: used once, expiring after INVITE_TTL_HOURS, replaced
 * by a newer one, refusing short passwords and partners of another program.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, type Fixture, type Harness } from '../helpers/harness.ts';
import { acceptInvite, createPortalWorld, invite } from './portal-sessions.ts';

let h: Harness;
let one: Fixture; // program 1, partner A
let other: Fixture; // program 2, partner C

beforeAll(async () => {
  ({ h, one, other } = await createPortalWorld());
});
afterAll(async () => {
  await h.close();
});

describe('partner invites', () => {
  test('an invite link works once, then refuses', async () => {
    const token = await invite(h, one, one.partnerId);
    const d = await h.request(`/api/v1/partner/invites/${token}`);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ partner_name: 'Partner One', partner_code: one.partnerCode });
    const s = await acceptInvite(h, token);
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
    const token = await invite(h, other, other.partnerId);
    h.clock.now = new Date(h.clock.now.getTime() + 73 * 3_600_000);
    const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/expired/);
  });

  test('a new invite replaces the unused one; unknown and malformed tokens are refused alike', async () => {
    const first = await invite(h, other, other.partnerId);
    const second = await invite(h, other, other.partnerId);
    expect((await h.request(`/api/v1/partner/invites/${first}`)).status).toBe(404);
    expect((await h.request(`/api/v1/partner/invites/${second}`)).status).toBe(200);
    expect((await h.request('/api/v1/partner/invites/not-a-token')).status).toBe(404);
    expect((await h.request(`/api/v1/partner/invites/${'x'.repeat(43)}`)).status).toBe(404);
  });

  test('a short password is refused and leaves the invite usable', async () => {
    const token = await invite(h, other, other.partnerId);
    const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'short' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.field).toBe('password');
    await acceptInvite(h, token, 'partner C password');
  });

  test('an invite for a partner of another program is not found', async () => {
    const r = await h.request(`/api/v1/admin/programs/${one.programId}/partners/${other.partnerId}/invites`, {
      method: 'POST',
      headers: bearer(ADMIN_TOKEN),
    });
    expect(r.status).toBe(404);
  });
});
