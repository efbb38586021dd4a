import type { EmailKind } from '../entities/email-message.ts';
import { formatMoney } from '../shared/money.ts';

/** What every template may show: the program's name and the partner's (or applicant's) name. */
export type Brand = { programName: string; recipientName: string };

/** The data each kind of email is written from. Amounts are minor units of their currency. */
export type EmailData =
  | { kind: 'invite'; link: string }
  | { kind: 'staff_invite'; link: string; role: string }
  | { kind: 'staff_password_reset'; link: string }
  | { kind: 'application_received' }
  | { kind: 'application_approved'; link: string; referralLink: string | null }
  | { kind: 'application_rejected'; reason: string | null }
  | {
      kind: 'commission_digest';
      period: 'daily' | 'weekly';
      commissions: Array<{ id: number; amountCents: number; currency: string; createdAt: string }>;
    }
  | { kind: 'payout_sent'; amountCents: number; currency: string; payoutId: number }
  | { kind: 'payout_failed'; amountCents: number; currency: string; payoutId: number; reason: string }
  | {
      kind: 'monthly_statement';
      month: string;
      lines: Array<{ currency: string; earnedCents: number; paidCents: number; balanceCents: number }>;
    };

export type RenderedEmail = { subject: string; text: string; html: string };

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const money = (cents: number, currency: string) => formatMoney(cents, currency);

/** A paragraph is plain text, or a link (shown as its URL in the plain-text part). */
type Block = string | { link: string; label: string };

function compose(subject: string, brand: Brand, blocks: Block[]): RenderedEmail {
  const hello = `Hello ${brand.recipientName},`;
  const sign = `— ${brand.programName}`;
  const text = [hello, ...blocks.map((b) => (typeof b === 'string' ? b : `${b.label}: ${b.link}`)), sign].join('\n\n');
  const html = [hello, ...blocks, sign]
    .map((b) =>
      typeof b === 'string'
        ? `<p>${esc(b).replace(/\n/g, '<br>')}</p>`
        : `<p><a href="${esc(b.link)}">${esc(b.label)}</a></p>`,
    )
    .join('\n');
  return { subject, text: `${text}\n`, html: `<!doctype html><html><body>${html}</body></html>` };
}

/** Renders one email (pure). The plain-text part always says everything the HTML part says. */
export function renderEmail(data: EmailData, brand: Brand): RenderedEmail {
  const p = brand.programName;
  switch (data.kind) {
    case 'invite':
      return compose(`Your partner account at ${p}`, brand, [
        `You are invited to the partner portal of ${p}. Choose a password to sign in.`,
        { link: data.link, label: 'Set your password' },
        'The link works once and expires.',
      ]);
    case 'staff_invite':
      return compose(`You are invited to the team of ${p}`, brand, [
        `You are invited to run the partner program of ${p} in its dashboard, as ${data.role}. Choose a password to sign in.`,
        { link: data.link, label: 'Set your password' },
        'The link works once and expires.',
      ]);
    case 'staff_password_reset':
      return compose(`Choose a new password for the ${p} dashboard`, brand, [
        'Someone (we hope you) asked to choose a new password for your dashboard account. If it was not you, ignore this email: your password stays as it is.',
        { link: data.link, label: 'Choose a new password' },
        'The link works once and expires.',
      ]);
    case 'application_received':
      return compose(`We received your application to ${p}`, brand, [
        `Thank you for applying to the partner program of ${p}. We will write to you once it has been reviewed.`,
      ]);
    case 'application_approved':
      return compose(`Welcome to ${p}: your application is approved`, brand, [
        `Your application to the partner program of ${p} is approved.`,
        { link: data.link, label: 'Set your password and sign in' },
        ...(data.referralLink ? [{ link: data.referralLink, label: 'Your referral link' }] : []),
      ]);
    case 'application_rejected':
      return compose(`Your application to ${p}`, brand, [
        `Thank you for your interest in ${p}. We cannot accept your application at this time.`,
        ...(data.reason ? [`Reason: ${data.reason}`] : []),
      ]);
    case 'commission_digest': {
      const lines = data.commissions.map(
        (c) => `${money(c.amountCents, c.currency)} (commission #${c.id}, ${c.createdAt.slice(0, 10)})`,
      );
      const n = data.commissions.length;
      return compose(`${p}: ${n} new commission${n === 1 ? '' : 's'}`, brand, [
        `You earned ${n === 1 ? 'a new commission' : `${n} new commissions`} ${data.period === 'daily' ? 'yesterday' : 'last week'}:`,
        lines.join('\n'),
      ]);
    }
    case 'payout_sent':
      return compose(`${p}: payout of ${money(data.amountCents, data.currency)} sent`, brand, [
        `We sent you ${money(data.amountCents, data.currency)} (payout #${data.payoutId}).`,
      ]);
    case 'payout_failed':
      return compose(`${p}: your payout could not be sent`, brand, [
        `Your payout of ${money(data.amountCents, data.currency)} (payout #${data.payoutId}) failed.`,
        `Reason: ${data.reason}`,
        'Please check your payout details in the partner portal.',
      ]);
    case 'monthly_statement':
      return compose(`${p}: your statement for ${data.month}`, brand, [
        `Your statement for ${data.month}:`,
        data.lines
          .map(
            (l) =>
              `${l.currency}: earned ${money(l.earnedCents, l.currency)}, paid ${money(l.paidCents, l.currency)}, balance ${money(l.balanceCents, l.currency)}`,
          )
          .join('\n'),
      ]);
  }
}

/** Kinds a partner cannot unsubscribe from (their account and their application). */
export const ACCOUNT_KINDS: readonly EmailKind[] = [
  'invite',
  'staff_invite',
  'staff_password_reset',
  'application_received',
  'application_approved',
  'application_rejected',
];
