/**
 * The email templates (pure): every kind has a subject, a plain-text part that says what the HTML
 * says (links included), and HTML that escapes what people typed.
 */
import { describe, expect, test } from 'vitest';
import { renderEmail, type EmailData } from '../../src/core/email/email-templates.ts';

const brand = { programName: 'Acme <Shop>', recipientName: 'Ada & Co' };

describe('email templates', () => {
  test.each<[string, EmailData, string, string[]]>([
    [
      'an invite carries its one-time link',
      { kind: 'invite', link: 'https://t.example/portal/invite/abc' },
      'Your partner account at Acme <Shop>',
      ['https://t.example/portal/invite/abc'],
    ],
    [
      'a received application thanks the applicant',
      { kind: 'application_received' },
      'We received your application to Acme <Shop>',
      ['Thank you for applying'],
    ],
    [
      'an approval carries the sign-in link and the referral link',
      {
        kind: 'application_approved',
        link: 'https://t.example/portal/invite/x',
        referralLink: 'https://shop.example/?aff=ada1',
      },
      'Welcome to Acme <Shop>: your application is approved',
      ['https://t.example/portal/invite/x', 'https://shop.example/?aff=ada1'],
    ],
    [
      'a rejection gives the reason',
      { kind: 'application_rejected', reason: 'Not a fit' },
      'Your application to Acme <Shop>',
      ['Reason: Not a fit'],
    ],
    [
      'a weekly digest lists each commission in its currency',
      {
        kind: 'commission_digest',
        period: 'weekly',
        commissions: [
          { id: 4, amountCents: 125_000, currency: 'VND', createdAt: '2026-11-20T10:00:00.000Z' },
          { id: 5, amountCents: 990, currency: 'EUR', createdAt: '2026-11-21T10:00:00.000Z' },
        ],
      },
      'Acme <Shop>: 2 new commissions',
      ['125,000 VND (commission #4, 2026-11-20)', '9.90 EUR (commission #5, 2026-11-21)', 'last week'],
    ],
    [
      'a payout sent says the amount',
      { kind: 'payout_sent', amountCents: 1000, currency: 'USD', payoutId: 3 },
      'Acme <Shop>: payout of 10.00 USD sent',
      ['payout #3'],
    ],
    [
      'a failed payout says why',
      { kind: 'payout_failed', amountCents: 1000, currency: 'USD', payoutId: 3, reason: 'account closed' },
      'Acme <Shop>: your payout could not be sent',
      ['Reason: account closed', 'payout details'],
    ],
    [
      'a statement has a line per currency',
      {
        kind: 'monthly_statement',
        month: '2026-10',
        lines: [{ currency: 'USD', earnedCents: 5000, paidCents: 3000, balanceCents: 2000 }],
      },
      'Acme <Shop>: your statement for 2026-10',
      ['USD: earned 50.00 USD, paid 30.00 USD, balance 20.00 USD'],
    ],
  ])('%s', (_label, data, subject, inText) => {
    const r = renderEmail(data, brand);
    expect(r.subject).toBe(subject);
    expect(r.text).toMatch(/^Hello Ada & Co,/);
    expect(r.text).toContain('— Acme <Shop>');
    for (const s of inText) expect(r.text).toContain(s);
    expect(r.html).toContain('Hello Ada &amp; Co,');
    expect(r.html).toContain('Acme &lt;Shop&gt;');
    expect(r.html).not.toContain('<Shop>');
    if ('link' in data) expect(r.html).toContain(`href="${data.link}"`);
  });
});
