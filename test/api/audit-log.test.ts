import { describe, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { AuditEntry } from '../../src/core/entities/audit-entry.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness, ADMIN_TOKEN } from '../helpers/harness.ts';
import { addStaff, asStaff } from '../helpers/staff.ts';
import { ADMIN_CLI_USER_AGENT } from '../../src/http/admin-audit.ts';
import { recordAuditEntry } from '../../src/core/audit/audit-log.ts';
import { CSV_PAGE_ROWS } from '../../src/http/routes/admin-audit-log.ts';

const h = useHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('staff'), OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });

const entriesOf = async (programId: number, query = '') =>
  (await h.admin('GET', `/programs/${programId}/audit${query}`)).entries as Array<Record<string, any>>;

describe('the audit log', () => {
  test('one entry per kind of change, with who, from where, before/after, and secrets redacted', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    const { session } = await addStaff(h, f.programId, 'olga@example.test', 'owner');
    const s = session!;
    // settings and rules (from the dashboard, by a staff user)
    await asStaff(h, s, 'PATCH', `/programs/${f.programId}`, { name: 'Renamed', commission_rate_bps: 1500 });
    // a group, a code, a key, a connection, an endpoint (by the operator's token)
    await h.admin('POST', `/programs/${f.programId}/partner-groups`, { name: 'Gold' });
    await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, { code: 'AUDIT10' });
    const key = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, {
      signing_secret: 'whsec_audit_secret_0123456789',
    });
    const ep = await h.admin('POST', `/programs/${f.programId}/event-endpoints`, { url: 'http://127.0.0.1:9/hook' });
    await h.admin('PATCH', `/programs/${f.programId}/event-endpoints/${ep.endpoint.id}`, { enabled: false });
    await h.admin('PUT', `/programs/${f.programId}/email-settings`, { sender_name: 'Acme Partners', reply_to: null });
    // an approval and a payout
    await clickAndLead(h, f, 'audit-customer');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'audit-1', amount_cents: 10_000, customer_key: 'audit-customer' },
      headers: bearer(f.liveKey),
    });
    await asStaff(h, s, 'POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`);
    // from the CLI (its User-Agent)
    const cli = await h.request(`/api/v1/admin/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      body: { currency: 'USD', amount_cents: 500 },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'user-agent': ADMIN_CLI_USER_AGENT },
    });
    expect(cli.status).toBe(201);
    // a staff change
    await asStaff(h, s, 'POST', `/programs/${f.programId}/staff`, { email: 'new@example.test', role: 'analyst' });

    const entries = await entriesOf(f.programId);
    const byAction = (a: string) => entries.find((e) => e.action === a);
    const settings = byAction('PATCH /programs/:id')!;
    expect(settings).toMatchObject({ actor_kind: 'staff', actor_email: 'olga@example.test', via: 'dashboard' });
    expect(settings.before.program.name).toBe('Acme');
    expect(settings.after.program.name).toBe('Renamed');
    expect(settings.ip).toEqual(expect.any(String));
    // Before and after of the endpoint and the email settings.
    const endpoint = byAction('PATCH /programs/:id/event-endpoints/:endpointId')!;
    expect([endpoint.before.endpoint.enabled, endpoint.after.endpoint.enabled]).toEqual([true, false]);
    const email = byAction('PUT /programs/:id/email-settings')!;
    expect([email.before.sender_name, email.after.sender_name]).toEqual([null, 'Acme Partners']);
    for (const action of [
      'POST /programs/:id/partner-groups',
      'POST /programs/:id/partners/:partnerId/codes',
      'POST /programs/:id/keys',
      'PUT /programs/:id/providers/:provider',
      'POST /programs/:id/event-endpoints',
      'POST /programs/:id/commissions/:cid/approve',
      'POST /programs/:id/partners/:partnerId/payouts',
      'POST /programs/:id/staff',
    ])
      expect(byAction(action), action).toBeDefined();
    expect(byAction('POST /programs/:id/keys')).toMatchObject({ actor_kind: 'operator', via: 'api' });
    expect(byAction('POST /programs/:id/partners/:partnerId/payouts')!.via).toBe('cli');
    expect(byAction('POST /programs/:id/commissions/:cid/approve')!.actor_email).toBe('olga@example.test');
    // Secrets never reach the log: the issued key, the signing secret, the endpoint secret, the invite link.
    const all = JSON.stringify(entries);
    for (const secret of [key.key, 'whsec_audit_secret_0123456789', ep.secret]) expect(all).not.toContain(secret);
    expect(byAction('POST /programs/:id/staff')!.after.invite_url).toBe('[redacted]');
    // Reads and previews are not changes.
    expect(entries.some((e) => e.action.startsWith('GET '))).toBe(false);

    // Filters and the CSV download.
    expect(
      (await entriesOf(f.programId, '?actor=olga@example.test')).every((e) => e.actor_email === 'olga@example.test'),
    ).toBe(true);
    expect((await entriesOf(f.programId, '?via=cli')).map((e) => e.action)).toEqual([
      'POST /programs/:id/partners/:partnerId/payouts',
    ]);
    const csv = await h.request(`/api/v1/admin/programs/${f.programId}/audit/export?action=keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (csv.body as string).trim().split('\n');
    expect(lines[0]).toMatch(/^id,created_at,actor_kind,actor_email/);
    // The fixture's live and test keys, and the one above.
    expect(lines.length).toBe(4);
    for (const line of lines.slice(1)) expect(line).toContain('POST /programs/:id/keys');
    expect(csv.body).not.toContain(key.key);
  });

  test('the CSV download streams the whole filtered log, page after page, newest first', async () => {
    const f = await createProgramFixture(h);
    const total = CSV_PAGE_ROWS * 2 + 7;
    const actor = {
      kind: 'operator',
      staffUserId: null,
      email: null,
      tokenId: null,
      via: 'api',
      ip: '127.0.0.1',
      userAgent: null,
    } as const;
    for (let i = 0; i < total; i++)
      await recordAuditEntry(h.ctx.deps(), actor, {
        programId: f.programId,
        action: `PATCH /seeded/${i}`,
        path: '/seeded',
        status: 200,
        before: undefined,
        after: { i },
      });
    const csv = await h.request(`/api/v1/admin/programs/${f.programId}/audit/export?action=seeded`, {
      headers: bearer(ADMIN_TOKEN),
    });
    const rows = (csv.body as string).trim().split('\n').slice(1);
    expect(rows).toHaveLength(total);
    const ids = rows.map((r) => Number(r.split(',')[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(total);
    expect(rows[0]).toContain(`PATCH /seeded/${total - 1}`);
    expect(rows.at(-1)).toContain('PATCH /seeded/0');
  });

  test('no route alters the log, and the table refuses UPDATE and DELETE', async () => {
    const f = await createProgramFixture(h);
    const [entry] = await entriesOf(f.programId);
    expect(entry).toBeDefined();
    for (const method of ['PATCH', 'PUT', 'DELETE', 'POST'])
      for (const path of [`/programs/${f.programId}/audit`, `/programs/${f.programId}/audit/${entry!.id}`]) {
        const r = await h.request(`/api/v1/admin${path}`, {
          method,
          body: method === 'DELETE' ? undefined : {},
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        expect([404, 405], `${method} ${path}`).toContain(r.status);
      }
    const em = h.ctx.deps().em.fork();
    await expect(em.nativeUpdate(AuditEntry, { id: entry!.id }, { action: 'forged' })).rejects.toThrow(/append-only/);
    await expect(em.nativeDelete(AuditEntry, { id: entry!.id })).rejects.toThrow(/append-only/);
    expect((await entriesOf(f.programId)).find((e) => e.id === entry!.id)!.action).toBe(entry!.action);
  });

  test('deployment-wide changes (TOTP enrolment) are recorded with their secret redacted', async () => {
    const f = await createProgramFixture(h);
    const { session } = await addStaff(h, f.programId, 'tina@example.test', 'analyst');
    const start = await asStaff(h, session!, 'POST', '/me/totp');
    const rows = await h.ctx
      .deps()
      .em.fork()
      .find(AuditEntry, { action: 'POST /me/totp', actorEmail: 'tina@example.test' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.after).toEqual({ secret: '[redacted]', otpauth_uri: '[redacted]' });
    expect(JSON.stringify(rows)).not.toContain(start.body.secret);
  });
});
