import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';

/** One message as the transport sends it. `messageId` is stable across retries (receivers may dedupe). */
export type OutgoingEmail = {
  messageId: string;
  to: string;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (the RFC 8058 unsubscribe pair). */
  headers: Record<string, string>;
};

/** Sends one email (SMTP in the worker, nodemailer); throws when the server did not accept it. */
export type EmailTransport = { send(m: OutgoingEmail): Promise<void> };

export type DeliveryPolicy = {
  /** Tries per message before it is given up (`failed_at`). */
  attempts: number;
  /** Wait before the second try; doubled each further try. */
  retryBaseMs: number;
  /** How long a claimed message is left to its process; after it, another sends it again. */
  leaseMs: number;
  /** The host part of Message-IDs. */
  messageIdHost: string;
};

export type DeliveryReport = { sent: number; retried: number; failed: number };

/**
 * Sends the outbox's due messages (at least once): claims a batch under a lease in one statement
 * (`skip locked`: two workers never claim the same row), sends each outside any transaction, then
 * marks it sent or schedules its retry. A process killed between the send and the mark leaves the
 * lease to expire: that message goes again, once; nothing is lost. Messages with a sign-in link
 * keep no body once sent.
 */
export async function deliverEmails(
  deps: CoreDeps,
  transport: EmailTransport,
  policy: DeliveryPolicy,
  limit = 50,
): Promise<DeliveryReport> {
  const db = typedSql(deps.em);
  const now = deps.clock();
  const claimed = await db
    .updateTable('email_message')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: new Date(now.getTime() + policy.leaseMs) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('email_message as m')
        .select('m.id')
        .where('m.sent_at', 'is', null)
        .where('m.failed_at', 'is', null)
        .where('m.next_attempt_at', '<=', now)
        .where((w) => w.or([w('m.lease_until', 'is', null), w('m.lease_until', '<=', now)]))
        .orderBy('m.id')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
  const report: DeliveryReport = { sent: 0, retried: 0, failed: 0 };
  for (const m of claimed.sort((a, b) => a.id - b.id)) {
    try {
      await transport.send({
        messageId: `<email-${m.id}@${policy.messageIdHost}>`,
        to: m.to_address,
        fromName: m.from_name,
        replyTo: m.reply_to,
        subject: m.subject,
        text: m.text_body,
        html: m.html_body,
        headers: m.unsubscribe_url
          ? { 'List-Unsubscribe': `<${m.unsubscribe_url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
          : {},
      });
      const blank = m.sensitive ? { text_body: '(sent; it held a sign-in link)', html_body: '' } : {};
      await db
        .updateTable('email_message')
        .set({ sent_at: deps.clock(), lease_until: null, last_error: null, ...blank })
        .where('id', '=', m.id)
        .execute();
      report.sent++;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const out = m.attempts >= policy.attempts;
      const wait = policy.retryBaseMs * 2 ** (m.attempts - 1);
      await db
        .updateTable('email_message')
        .set({
          lease_until: null,
          last_error: error.slice(0, 500),
          next_attempt_at: new Date(deps.clock().getTime() + wait),
          failed_at: out ? deps.clock() : null,
        })
        .where('id', '=', m.id)
        .execute();
      deps.log.warn(
        { emailId: m.id, attempts: m.attempts, err: error },
        out ? 'email given up' : 'email send failed; will retry',
      );
      if (out) report.failed++;
      else report.retried++;
    }
  }
  return report;
}
