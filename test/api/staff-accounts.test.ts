import { describe, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { Secret, TOTP } from 'otpauth';
import { ADMIN_TOKEN, bearer, createProgramFixture, useHarness } from '../helpers/harness.ts';
import { AuditEntry } from '../../src/core/entities/audit-entry.ts';
import { addStaff, asStaff, signIn, withToken } from '../helpers/staff.ts';

const h = useHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('staff') });

/** The code an authenticator app shows at the service's (injected) time, `steps` periods later. */
const codeAt = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: h.clock.now.getTime() + steps * 30_000,
  });

describe('staff accounts', () => {
  test('invite link sets the password once; sign-in with email and password; wrong password refused', async () => {
    const f = await createProgramFixture(h);
    const added = await h.admin('POST', `/programs/${f.programId}/staff`, {
      email: 'Ann@Example.test',
      role: 'analyst',
    });
    expect(added.member).toMatchObject({ email: 'ann@example.test', role: 'analyst', has_password: false });
    const token = new URL(added.invite_url).pathname.split('/').pop()!;
    const described = await h.request(`/api/v1/dashboard/invites/${token}`);
    expect(described.body.email).toBe('ann@example.test');
    const weak = await h.request(`/api/v1/dashboard/invites/${token}`, { body: { password: 'short' } });
    expect(weak.status).toBe(400);
    const ok = await h.request(`/api/v1/dashboard/invites/${token}`, { body: { password: 'correct horse battery' } });
    expect(ok.status).toBe(201);
    const again = await h.request(`/api/v1/dashboard/invites/${token}`, {
      body: { password: 'correct horse battery' },
    });
    expect(again.status).toBe(404);
    // Setting the password is audited as the new member's change, without the password.
    const [set] = await h.ctx
      .deps()
      .em.fork()
      .find(AuditEntry, { action: 'POST /dashboard/invites/:token', actorEmail: 'ann@example.test' });
    expect(set).toMatchObject({ actorKind: 'staff', via: 'dashboard', status: 201 });
    expect(JSON.stringify(set)).not.toContain('correct horse battery');

    const s = await signIn(h, 'ann@example.test');
    const me = await asStaff(h, s, 'GET', '/me');
    expect(me.body).toEqual({
      kind: 'staff',
      email: 'ann@example.test',
      totp_enabled: false,
      roles: [{ program_id: f.programId, role: 'analyst' }],
    });
    const wrong = await h.request('/api/v1/dashboard/session', {
      body: { email: 'ann@example.test', password: 'not the password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    // An existing user added to a second program gets no new invite.
    const g = await createProgramFixture(h);
    const second = await h.admin('POST', `/programs/${g.programId}/staff`, {
      email: 'ann@example.test',
      role: 'owner',
    });
    expect(second.invite_url).toBeNull();
  });

  test('TOTP: enrol, confirm with a code, then sign-in needs a fresh code (a replay is refused)', async () => {
    const f = await createProgramFixture(h);
    const { session } = await addStaff(h, f.programId, 'tess@example.test', 'admin');
    const start = await asStaff(h, session!, 'POST', '/me/totp');
    expect(start.status).toBe(201);
    expect(start.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    const secret: string = start.body.secret;
    const bad = await asStaff(h, session!, 'POST', '/me/totp/confirm', { code: codeAt(secret, 5) });
    expect(bad.status).toBe(400);
    const confirmed = await asStaff(h, session!, 'POST', '/me/totp/confirm', { code: codeAt(secret) });
    expect(confirmed.body).toEqual({ totp_enabled: true });

    const without = await h.request('/api/v1/dashboard/session', {
      body: { email: 'tess@example.test', password: 'correct horse battery' },
    });
    expect(without.status).toBe(401);
    expect(without.body.error.details.totp_required).toBe(true);
    const replay = await h.request('/api/v1/dashboard/session', {
      body: { email: 'tess@example.test', password: 'correct horse battery', totp_code: codeAt(secret) },
    });
    expect(replay.status).toBe(401);
    h.clock.now = new Date(h.clock.now.getTime() + 30_000);
    const s = await signIn(h, 'tess@example.test', codeAt(secret));
    expect((await asStaff(h, s, 'GET', '/me')).body.totp_enabled).toBe(true);
  });

  test('tokens: created (shown once), scoped to their role, last use recorded, revoked at once', async () => {
    const f = await createProgramFixture(h);
    const { session } = await addStaff(h, f.programId, 'tom@example.test', 'payouts');
    const wider = await asStaff(h, session!, 'POST', '/me/tokens', {
      name: 'ci',
      program_id: f.programId,
      role: 'admin',
    });
    expect(wider.status).toBe(403);
    const created = await asStaff(h, session!, 'POST', '/me/tokens', {
      name: 'reports',
      program_id: f.programId,
      role: 'analyst',
    });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^stf_/);
    expect((await withToken(h, secret, 'GET', `/programs/${f.programId}/stats`)).status).toBe(200);
    // The token is an analyst's, though its user may run payouts.
    const pay = await withToken(h, secret, 'POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
    expect(pay.status).toBe(403);
    const listed = await asStaff(h, session!, 'GET', '/me/tokens');
    expect(listed.body.tokens[0]).toMatchObject({ name: 'reports', role: 'analyst', revoked_at: null });
    expect(listed.body.tokens[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // A token cannot make more tokens.
    expect(
      (await withToken(h, secret, 'POST', '/me/tokens', { name: 'x', program_id: f.programId, role: 'analyst' }))
        .status,
    ).toBe(403);

    await asStaff(h, session!, 'POST', `/me/tokens/${created.body.token.id}/revoke`);
    const after = await withToken(h, secret, 'GET', `/programs/${f.programId}/stats`);
    expect(after.status).toBe(401);
  });

  test('a removed user: their session and tokens are refused on the next call', async () => {
    const f = await createProgramFixture(h);
    const { userId, session } = await addStaff(h, f.programId, 'rex@example.test', 'admin');
    const t = await asStaff(h, session!, 'POST', '/me/tokens', { name: 'cli', program_id: f.programId, role: 'admin' });
    expect((await withToken(h, t.body.secret, 'GET', `/programs/${f.programId}`)).status).toBe(200);
    expect((await asStaff(h, session!, 'GET', `/programs/${f.programId}`)).status).toBe(200);

    const removed = await h.admin('DELETE', `/programs/${f.programId}/staff/${userId}`);
    expect(removed.removed.email).toBe('rex@example.test');
    expect((await withToken(h, t.body.secret, 'GET', `/programs/${f.programId}`)).status).toBe(401);
    expect((await asStaff(h, session!, 'GET', `/programs/${f.programId}`)).status).toBe(401);
  });

  test('a demoted user loses the permission on the next call', async () => {
    const f = await createProgramFixture(h);
    const { userId, session } = await addStaff(h, f.programId, 'dee@example.test', 'admin');
    const patch = () => asStaff(h, session!, 'PATCH', `/programs/${f.programId}`, { name: 'Renamed' });
    expect((await patch()).status).toBe(200);
    await h.admin('PATCH', `/programs/${f.programId}/staff/${userId}`, { role: 'analyst' });
    const refused = await patch();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.data).toBeNull();
  });
  test("the program's last owner can be neither demoted nor removed; with a second owner, either can", async () => {
    const f = await createProgramFixture(h);
    const { userId: ana } = await addStaff(h, f.programId, 'ana@example.test', 'owner');
    const asOperator = (method: string, path: string, body?: unknown) =>
      h.request(`/api/v1/admin/programs/${f.programId}${path}`, { method, body, headers: bearer(ADMIN_TOKEN) });
    for (const [method, body] of [
      ['PATCH', { role: 'admin' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await asOperator(method, `/staff/${ana}`, body);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/last owner/) });
    }
    expect((await h.admin('GET', `/programs/${f.programId}/staff`)).members).toEqual([
      expect.objectContaining({ user_id: ana, role: 'owner' }),
    ]);
    const { userId: ben } = await addStaff(h, f.programId, 'ben@example.test', 'owner');
    expect((await asOperator('PATCH', `/staff/${ana}`, { role: 'admin' })).status).toBe(200);
    // Ben is now the last owner.
    expect((await asOperator('DELETE', `/staff/${ben}`)).status).toBe(409);
    expect((await asOperator('DELETE', `/staff/${ana}`)).status).toBe(200);
  });
});
