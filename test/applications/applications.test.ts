/**
 * Partner applications through the real app: the public page and its JSON twin, problems in plain
 * words, disposable addresses refused, the approval queue (approve, reject with a reason, in bulk,
 * scoped to the program), auto-approval, the terms version on the partner, and an approved
 * applicant signing in to the portal.
 */
import { describe, expect, test } from 'vitest';
import { Partner } from '../../src/core/entities/partner.ts';
import { ADMIN_TOKEN, bearer, useHarness } from '../helpers/harness.ts';
import { acceptInvite, partnerSignIn } from '../portal/portal-sessions.ts';
import { applicant, applied, apply, programWithForm } from './application-steps.ts';

const h = useHarness({ APPLICATION_LIMIT_PER_MINUTE: '100000', SESSION_TTL_HOURS: '12' });
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

describe('the public form', () => {
  test('off until the program enables it', async () => {
    const { program } = await h.admin('POST', '/programs', { name: 'Closed' });
    expect((await h.request(`/apply/${program.id}`)).status).toBe(404);
    const r = await apply(h, program.id, applicant());
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect((await h.request('/apply/999999')).status).toBe(404);
  });

  test('the page shows the program, its questions and its terms version', async () => {
    const programId = await programWithForm(h);
    const r = await h.request(`/apply/${programId}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://shop.example");
    const html = String(r.body);
    expect(html).toContain('Apply to the Acme Shop partner program');
    expect(html).toContain('Website');
    expect(html).toContain('Tell us about your audience (optional)');
    expect(html).toContain('Program terms (version v1)');
  });

  test('problems come back in plain words, one per field, and nothing is stored', async () => {
    const programId = await programWithForm(h);
    const r = await apply(h, programId, { name: ' ', email: 'not-an-address', answers: { website: 'ada' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.fields).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter a valid email address, like name@example.com.',
      website: '"Website" must be a web address starting with https://.',
      accept_terms: 'Please accept the program terms to apply.',
    });
    const missing = await apply(h, programId, applicant({ answers: {} }));
    expect(missing.body.error.details.fields).toEqual({ website: 'Please answer "Website".' });
    expect((await h.admin('GET', `/programs/${programId}/applications`)).total).toBe(0);
  });

  test('a disposable address is refused; the same address cannot apply twice', async () => {
    const programId = await programWithForm(h);
    const r = await apply(h, programId, applicant({ email: 'someone@mailinator.com' }));
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields.email).toMatch(/disposable mail services are not accepted/);
    const body = applicant();
    await applied(h, programId, body);
    const again = await apply(h, programId, { ...body, email: body.email.toUpperCase() });
    expect(again.status).toBe(400);
    expect(again.body.error.details.fields.email).toBe('An application with this email address was already received.');
  });

  test('two applications from one address at the same moment: one is received, the other refused in plain words', async () => {
    const programId = await programWithForm(h);
    const body = applicant();
    const results = await Promise.all([apply(h, programId, body), apply(h, programId, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    const refused = results.find((r) => r.status === 400)!;
    expect(refused.body.error.details.fields.email).toBe(
      'An application with this email address was already received.',
    );
    expect((await h.admin('GET', `/programs/${programId}/applications`)).total).toBe(1);
  });

  test('the HTML form shows each problem beside its field, keeps the answers, then accepts', async () => {
    const programId = await programWithForm(h);
    const post = (form: string) =>
      h.request(`/apply/${programId}`, { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const bad = await post('name=Grace&email=grace%40example.com&website=nope');
    expect(bad.status).toBe(400);
    const html = String(bad.body);
    expect(html).toContain('id="website-problem"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('Please accept the program terms to apply.');
    expect(html).toContain('value="grace@example.com"');
    const ok = await post('name=Grace&email=grace%40example.com&website=https%3A%2F%2Fgrace.example&accept_terms=yes');
    expect(ok.status).toBe(201);
    expect(String(ok.body)).toContain('Application received');
    const list = await h.admin('GET', `/programs/${programId}/applications?status=pending`);
    expect(list.applications).toMatchObject([
      { name: 'Grace', email: 'grace@example.com', answers: { website: 'https://grace.example' }, terms_version: 'v1' },
    ]);
  });

  test('changed terms need a new version', async () => {
    const programId = await programWithForm(h);
    const r = await h.request(`/api/v1/admin/programs/${programId}/application-form`, {
      method: 'PUT',
      headers: bearer(ADMIN_TOKEN),
      body: { terms_text: 'New terms.' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details.field).toBe('terms_version');
    const ok = await h.admin('PUT', `/programs/${programId}/application-form`, {
      terms_text: 'New terms.',
      terms_version: 'v2',
    });
    expect(ok.terms_version).toBe('v2');
  });
});

describe('the approval queue', () => {
  test('bulk approval creates partners with the terms they accepted; the applicant signs in', async () => {
    const programId = await programWithForm(h);
    const acceptedAt = h.clock.now.toISOString();
    const a = await applied(h, programId);
    const b = await applied(h, programId, applicant({ name: 'Bob Byte' }));
    const r = await h.admin('POST', `/programs/${programId}/applications/approve`, { ids: [a, b] });
    expect(r.results.map((x: any) => x.outcome)).toEqual(['approved', 'approved']);
    const first = r.results[0];
    expect(first.referral_link).toBe(`https://shop.example/?aff=${first.partner_code}`);
    const partner = await h.ctx.deps().em.findOneOrFail(Partner, { id: first.partner_id });
    expect(partner.program).toBe(programId);
    expect(partner.termsVersion).toBe('v1');
    expect(partner.termsAcceptedAt?.toISOString()).toBe(acceptedAt);
    // Approved once: a second approval (or a rejection) changes nothing.
    const again = await h.admin('POST', `/programs/${programId}/applications/reject`, { ids: [a], reason: 'late' });
    expect(again.results).toEqual([{ application_id: a, outcome: 'skipped', status: 'approved' }]);
    await acceptInvite(h, tokenOf(first.invite_url), 'a long enough password');
    const s = await partnerSignIn(h, partner.email!, 'a long enough password');
    const me = await h.request('/api/v1/partner/me', { headers: { cookie: s.cookie } });
    expect(me.status).toBe(200);
    expect(me.body.partner.code).toBe(first.partner_code);
  });

  test('rejection records the reason; ids of another program are not found', async () => {
    const programId = await programWithForm(h);
    const otherId = await programWithForm(h);
    const a = await applied(h, programId);
    const foreign = await applied(h, otherId);
    const r = await h.admin('POST', `/programs/${programId}/applications/reject`, {
      ids: [a, foreign],
      reason: 'Your site is not about our products.',
    });
    expect(r.results).toEqual([
      { application_id: a, outcome: 'rejected' },
      { application_id: foreign, outcome: 'skipped', status: 'not_found' },
    ]);
    const list = await h.admin('GET', `/programs/${programId}/applications?status=rejected`);
    expect(list.applications[0]).toMatchObject({ id: a, reason: 'Your site is not about our products.' });
    expect((await h.admin('GET', `/programs/${otherId}/applications?status=pending`)).total).toBe(1);
  });

  test('auto-approval approves a valid application at once', async () => {
    const programId = await programWithForm(h, { auto_approve: true });
    const r = await apply(h, programId, applicant());
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('approved');
    const list = await h.admin('GET', `/programs/${programId}/applications`);
    expect(list.applications[0]).toMatchObject({ status: 'approved', partner_id: expect.any(Number) });
  });
});

describe('spam limits', () => {
  const limited = useHarness({ APPLICATION_LIMIT_PER_MINUTE: '2' });
  test('past the per-client limit the form answers 429 rate_limited', async () => {
    const programId = await programWithForm(limited);
    expect((await apply(limited, programId, applicant())).status).toBe(201);
    expect((await apply(limited, programId, applicant())).status).toBe(201);
    const r = await apply(limited, programId, applicant());
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('rate_limited');
    expect(r.body.error.retry_after_seconds).toBeGreaterThan(0);
    expect((await limited.admin('GET', `/programs/${programId}/applications`)).total).toBe(2);
  });
});
