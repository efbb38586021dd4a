/**
 * Email to partners against a real SMTP server on 127.0.0.1 (`smtp-server`, started here): an
 * application is received and approved, the approval email carries the portal link that signs the
 * partner in, their first commission arrives in the next daily digest (with RFC 8058 unsubscribe
 * headers that work), and a payout email sent while the SMTP server is down arrives exactly once
 * after it returns. The emails no request causes: a weekly digest, a failed payout with its reason,
 * the monthly statement.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sweepEmails } from '../../src/workers/sweep-emails.ts';
import {
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { updateEmailPrefs } from '../../src/core/email/email-prefs.ts';
import { acceptInvite, partnerSignIn } from '../portal/portal-sessions.ts';
import { applicant, applied, programWithForm } from './application-steps.ts';
import { startMailbox, type Mailbox } from './smtp-mailbox.ts';

let mailbox: Mailbox;
let h: Harness;
beforeAll(async () => {
  mailbox = await startMailbox();
  h = await createHarness({
    SMTP_URL: mailbox.url,
    SMTP_FROM: 'partners@acme.example',
    PUBLIC_BASE_URL: 'https://partners.acme.example',
    EMAIL_RETRY_BASE_MS: '60000',
    APPLICATION_LIMIT_PER_MINUTE: '100000',
  });
});
afterAll(async () => {
  await h?.close();
  await mailbox?.stop().catch(() => {});
});

const sweep = () => sweepEmails(h.ctx);
/** A header as sent (mailparser turns List-* headers into objects). */
const header = (m: { headerLines: ReadonlyArray<{ key: string; line: string }> }, name: string) =>
  m.headerLines.find((l) => l.key === name)?.line.replace(/^[^:]+:\s*/, '');
const mailsTo = (to: string) => mailbox.received.filter((m) => m.to && JSON.stringify(m.to).includes(to));

describe('email to partners over SMTP', () => {
  test('application, approval with its link, digest, payout; SMTP down during the payout', async () => {
    const programId = await programWithForm(h);
    await h.admin('PUT', `/programs/${programId}/email-settings`, {
      sender_name: 'Acme Partners',
      reply_to: 'team@acme.example',
    });
    const body = applicant({ name: 'Ada Lovelace' });
    const applicationId = await applied(h, programId, body);
    expect((await sweep())?.sent).toBe(1);
    const [received] = mailsTo(body.email);
    expect(received!.subject).toBe('We received your application to Acme Shop');
    expect(received!.from?.value[0]).toEqual({ name: 'Acme Partners', address: 'partners@acme.example' });
    expect(received!.replyTo?.value[0]?.address).toBe('team@acme.example');
    expect(received!.text).toContain('Thank you for applying');

    // Approved: the email's link sets the password and signs the partner in.
    const decision = (await h.admin('POST', `/programs/${programId}/applications/approve`, { ids: [applicationId] }))
      .results[0];
    await sweep();
    const approval = mailsTo(body.email).find((m) => m.subject?.includes('approved'))!;
    expect(approval.text).toContain(`https://shop.example/?aff=${decision.partner_code}`);
    expect(approval.html).toContain('Set your password and sign in');
    const link = /https:\/\/partners\.acme\.example\/portal\/invite\/([\w-]+)/.exec(approval.text!)!;
    expect(link[0]).toBe(decision.invite_url);
    await acceptInvite(h, link[1]!, 'a long enough password');
    await partnerSignIn(h, body.email, 'a long enough password');
    // Account emails carry no unsubscribe link.
    expect(header(approval, 'list-unsubscribe')).toBeUndefined();

    // The partner's first commission is in the next day's digest, with working one-click unsubscribe.
    const keys = await h.admin('POST', `/programs/${programId}/keys`, { mode: 'live' });
    const f: Fixture = {
      programId,
      liveKey: keys.key,
      testKey: '',
      liveKeyId: keys.id,
      partnerId: decision.partner_id,
      partnerCode: decision.partner_code,
    };
    await clickAndLead(h, f, 'customer-1');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'tx-1', amount_cents: 10_000, customer_key: 'customer-1' },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    await sweep();
    expect(mailsTo(body.email).filter((m) => m.subject?.includes('commission'))).toHaveLength(0);
    h.clock.advanceDays(1);
    await sweep();
    const digests = mailsTo(body.email).filter((m) => m.subject?.includes('new commission'));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.subject).toBe('Acme Shop: 1 new commission');
    expect(digests[0]!.text).toContain(`10.00 USD (commission #${sale.body.commission_id}`);
    expect(header(digests[0]!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    await sweep();
    expect(mailsTo(body.email).filter((m) => m.subject?.includes('new commission'))).toHaveLength(1);

    // A payout while the SMTP server is down: retried, delivered once after it returns.
    await h.admin('POST', `/programs/${programId}/commissions/${sale.body.commission_id}/approve`, {});
    const open = await h.admin('POST', `/programs/${programId}/partners/${f.partnerId}/payouts`, { currency: 'USD' });
    await mailbox.stop();
    await h.admin('POST', `/programs/${programId}/payouts/${open.payout.id}/pay`, {});
    const down = await sweep();
    expect(down).toMatchObject({ sent: 0, retried: 1 });
    await mailbox.start();
    expect((await sweep())?.sent).toBe(0); // not due before its retry time
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    expect((await sweep())?.sent).toBe(1);
    await sweep();
    const payouts = mailsTo(body.email).filter((m) => m.subject?.includes('payout'));
    expect(payouts).toHaveLength(1);
    expect(payouts[0]!.subject).toBe('Acme Shop: payout of 10.00 USD sent');

    // One-click unsubscribe (RFC 8058): a POST to the header's link stops digests and payout emails.
    const unsubscribe = /<([^>]+)>/.exec(String(header(digests[0]!, 'list-unsubscribe')))![1]!;
    const url = new URL(unsubscribe);
    expect(url.origin).toBe('https://partners.acme.example');
    const r = await h.request(`${url.pathname}${url.search}`, {
      method: 'POST',
      raw: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    const s = await partnerSignIn(h, body.email, 'a long enough password');
    const prefs = await h.request('/api/v1/partner/email-preferences', { headers: { cookie: s.cookie } });
    expect(prefs.body).toMatchObject({ unsubscribed: true });
    const changed = await h.request('/api/v1/partner/email-preferences', {
      method: 'PUT',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
      body: { commission_digest: 'weekly', unsubscribed: false },
    });
    expect(changed.body).toEqual({
      commission_digest: 'weekly',
      payout_emails: true,
      statement_emails: true,
      unsubscribed: false,
    });
    const forged = await h.request(
      `${url.pathname}?token=${f.partnerId + 1}.${url.searchParams.get('token')!.split('.')[1]}`,
      {
        method: 'POST',
      },
    );
    expect(forged.status).toBe(404);
  });
});

describe('the emails no request causes', () => {
  test('a weekly digest on Monday, a failed payout with its reason, the monthly statement', async () => {
    h.clock.now = new Date('2027-01-06T12:00:00Z'); // a Wednesday
    const f = await createProgramFixture(h);
    const email = 'wes@partners.example';
    const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
      code: `wes${Date.now().toString(36)}`,
      name: 'Wes Weekly',
      email,
    });
    const wes: Fixture = { ...f, partnerId: partner.id, partnerCode: partner.code };
    await updateEmailPrefs(h.ctx.deps(), partner.id, { commissionDigest: 'weekly' });
    h.clock.now = new Date('2027-01-06T13:00:00Z');
    await clickAndLead(h, wes, 'weekly-customer');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'weekly-1', amount_cents: 25_000, customer_key: 'weekly-customer' },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    const mine = (word: string) => mailsTo(email).filter((m) => m.subject?.includes(word));
    // Thursday: a daily digest would be due; a weekly one waits for the week to end.
    h.clock.now = new Date('2027-01-07T09:00:00Z');
    await sweep();
    expect(mine('new commission')).toHaveLength(0);
    h.clock.now = new Date('2027-01-11T01:00:00Z'); // Monday
    await sweep();
    await sweep();
    const [digest, ...more] = mine('new commission');
    expect(more).toEqual([]);
    expect(digest!.subject).toBe('Acme: 1 new commission');
    expect(digest!.text).toContain('last week');

    // Paid, then marked failed by the merchant: one email each, the failure with its reason.
    await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});
    const open = await h.admin('POST', `/programs/${f.programId}/partners/${partner.id}/payouts`, { currency: 'USD' });
    await h.admin('POST', `/programs/${f.programId}/payouts/${open.payout.id}/pay`, {});
    await sweep();
    await h.admin('POST', `/programs/${f.programId}/payouts/${open.payout.id}/fail`, {
      reason: 'The bank account is closed',
    });
    await sweep();
    await sweep();
    expect(mine('payout').map((m) => m.subject)).toEqual([
      'Acme: payout of 25.00 USD sent',
      'Acme: your payout could not be sent',
    ]);
    expect(mine('could not be sent')[0]!.text).toContain('Reason: The bank account is closed');

    // February: January's statement, once, with the balance the failed payout gave back.
    h.clock.now = new Date('2027-02-01T02:00:00Z');
    await sweep();
    await sweep();
    const statements = mine('statement');
    expect(statements.map((m) => m.subject)).toEqual(['Acme: your statement for 2027-01']);
    expect(statements[0]!.text).toMatch(/USD: earned 25\.00 USD, .*balance 25\.00 USD/);
  });
});

describe('staff email', () => {
  test('a new team member gets the invite by email; "forgot password" mails a one-time link, and says nothing of unknown addresses', async () => {
    const f = await createProgramFixture(h);
    const added = await h.admin('POST', `/programs/${f.programId}/staff`, {
      email: 'tess@acme.example',
      role: 'admin',
    });
    await sweep();
    const [invite] = mailsTo('tess@acme.example');
    expect(invite!.subject).toBe('You are invited to the team of Acme');
    expect(invite!.text).toContain(added.invite_url);
    expect(header(invite!, 'list-unsubscribe')).toBeUndefined();
    const token = new URL(added.invite_url).pathname.split('/').pop()!;
    const set = await h.request(`/api/v1/dashboard/invites/${token}`, { body: { password: 'first password here' } });
    expect(set.status).toBe(201);

    const asked = await h.request('/api/v1/dashboard/password-reset', { body: { email: 'Tess@acme.example' } });
    const unknown = await h.request('/api/v1/dashboard/password-reset', { body: { email: 'nobody@acme.example' } });
    expect([asked.status, unknown.status]).toEqual([202, 202]);
    expect(unknown.body).toEqual(asked.body);
    await sweep();
    expect(mailsTo('nobody@acme.example')).toEqual([]);
    const reset = mailsTo('tess@acme.example').find((m) => m.subject?.startsWith('Choose a new password'))!;
    const link = /https:\/\/partners\.acme\.example\/dashboard\/invite\/([\w-]+)/.exec(reset.text!)![1]!;
    const chosen = await h.request(`/api/v1/dashboard/invites/${link}`, { body: { password: 'second password here' } });
    expect(chosen.status).toBe(201);
    // Once only; the old password no longer signs in, the new one does.
    expect(
      (await h.request(`/api/v1/dashboard/invites/${link}`, { body: { password: 'third password here' } })).status,
    ).toBe(404);
    const signIn = (password: string) =>
      h.request('/api/v1/dashboard/session', { body: { email: 'tess@acme.example', password } });
    expect((await signIn('first password here')).status).toBe(401);
    expect((await signIn('second password here')).status).toBe(201);
  });
});

describe('invites by email', () => {
  test("an admin's portal invite is emailed to the partner, with the same link", async () => {
    const { program } = await h.admin('POST', '/programs', { name: 'Invite Shop' });
    const { partner } = await h.admin('POST', `/programs/${program.id}/partners`, {
      code: `inv${Date.now().toString(36)}`,
      name: 'Ivy Invitee',
      email: 'ivy@partners.example',
    });
    const invite = await h.admin('POST', `/programs/${program.id}/partners/${partner.id}/invites`);
    expect((await sweep())?.sent).toBe(1);
    const [mail] = mailsTo('ivy@partners.example');
    expect(mail!.subject).toBe('Your partner account at Invite Shop');
    expect(mail!.text).toContain(invite.invite_url);
    expect(mail!.from?.value[0]).toEqual({ name: 'Invite Shop', address: 'partners@acme.example' });
    // Sent: the link, a credential, is no longer kept in the outbox.
    const rows = await h.ctx
      .deps()
      .em.getConnection()
      .execute(`select text_body from email_message where kind = 'invite'`);
    expect(JSON.stringify(rows)).not.toContain(invite.invite_url);
  });
});
