/**
 * One public origin (src/public-origin.ts): every link the service writes (the application page,
 * the approval's portal invite and referral link to the demo page, the approval email, partner and
 * staff invites, the portal's referral link, unsubscribe links, the docs link of a retired key's
 * error) starts with PUBLIC_BASE_URL, else with http://localhost:PORT, never with the request's Host.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sweepEmails } from '../../src/workers/sweep-emails.ts';
import { unsubscribeUrl } from '../../src/core/email/email-prefs.ts';
import { ADMIN_TOKEN, bearer, createHarness, type Harness } from '../helpers/harness.ts';
import { acceptInvite, asPartner } from '../portal/portal-sessions.ts';
import { applicant, applied, FORM } from '../applications/application-steps.ts';
import { startMailbox, type Mailbox } from '../applications/smtp-mailbox.ts';

const cases: Array<{ name: string; env: Record<string, string>; origin: string }> = [
  { name: 'without PUBLIC_BASE_URL', env: {}, origin: 'http://localhost:3000' },
  {
    name: 'with PUBLIC_BASE_URL',
    env: { PUBLIC_BASE_URL: 'https://partners.acme.example/' },
    origin: 'https://partners.acme.example',
  },
];

describe.each(cases)('links share one origin $name', ({ env, origin }) => {
  let mailbox: Mailbox;
  let h: Harness;
  beforeAll(async () => {
    mailbox = await startMailbox();
    h = await createHarness({ ...env, SMTP_URL: mailbox.url, APPLICATION_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    await h?.close();
    await mailbox?.stop().catch(() => {});
  });

  test('application page, approval, email, invites, portal, unsubscribe and docs links', async () => {
    // A program without a domain: the approval's referral link is the demo page (on in these tests).
    const { program } = await h.admin('POST', '/programs', { name: 'Acme Shop' });
    const form = await h.admin('PUT', `/programs/${program.id}/application-form`, FORM);
    const body = applicant();
    const applicationId = await applied(h, program.id, body);
    const [decision] = (await h.admin('POST', `/programs/${program.id}/applications/approve`, { ids: [applicationId] }))
      .results;
    await sweepEmails(h.ctx);
    const approval = mailbox.received.find((m) => m.subject?.includes('approved'))!;
    const emailed = approval.text!.match(/https?:\/\/[^\s)>\]]+/g)!;

    const partnerInvite = await h.admin('POST', `/programs/${program.id}/partners/${decision.partner_id}/invites`);
    const staff = await h.admin('POST', `/programs/${program.id}/staff`, {
      email: 'ana@acme.example',
      role: 'analyst',
    });
    const session = await acceptInvite(h, new URL(partnerInvite.invite_url).pathname.split('/').pop()!);
    const me = (await asPartner(h, session, '/me')).body;
    const key = await h.admin('POST', `/programs/${program.id}/keys`, { mode: 'live' });
    await h.admin('POST', `/programs/${program.id}/keys/${key.id}/retire`, {});
    const retired = await h.request('/api/v1/cli/status', { headers: bearer(key.key) });

    const links = {
      page: form.page_url,
      approvalInvite: decision.invite_url,
      approvalReferral: decision.referral_link,
      emailInvite: emailed.find((u) => u.includes('/portal/invite/')),
      emailReferral: emailed.find((u) => u.includes('/demo?')),
      partnerInvite: partnerInvite.invite_url,
      staffInvite: staff.invite_url,
      portalReferral: me.referral_link,
      unsubscribe: unsubscribeUrl(h.ctx.deps().mail!, decision.partner_id),
      docs: retired.body.error.docs_url,
    };
    expect(links).toEqual({
      page: `${origin}/apply/${program.id}`,
      approvalInvite: expect.stringMatching(new RegExp(`^${origin}/portal/invite/[\\w-]+$`)),
      approvalReferral: `${origin}/demo?program=${program.id}&aff=${decision.partner_code}`,
      emailInvite: decision.invite_url,
      emailReferral: decision.referral_link,
      partnerInvite: expect.stringMatching(new RegExp(`^${origin}/portal/invite/[\\w-]+$`)),
      staffInvite: expect.stringMatching(new RegExp(`^${origin}/dashboard/invite/[\\w-]+$`)),
      portalReferral: decision.referral_link,
      unsubscribe: expect.stringMatching(new RegExp(`^${origin}/email/unsubscribe\\?token=`)),
      docs: `${origin}/docs`,
    });
    // A request to another host name (a browser on 127.0.0.1): the links stay on the one origin.
    const viaIp = await h.request(`/api/v1/admin/programs/${program.id}/application-form`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, host: '127.0.0.1:9999' },
    });
    expect(viaIp.body.page_url).toBe(`${origin}/apply/${program.id}`);
  });
});
