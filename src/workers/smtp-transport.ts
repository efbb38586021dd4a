import nodemailer from 'nodemailer';
import type { EmailTransport } from '../core/email/deliver-emails.ts';

/**
 * The outbox's transport over SMTP (nodemailer). Short timeouts: a server that is down or hangs
 * fails the attempt quickly and the outbox retries it later, instead of holding the sweep.
 */
export function createSmtpTransport(smtpUrl: string, from: string): EmailTransport & { close(): void } {
  const transporter = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(m) {
      await transporter.sendMail({
        messageId: m.messageId,
        from: m.fromName ? { name: m.fromName, address: from } : from,
        to: m.to,
        replyTo: m.replyTo ?? undefined,
        subject: m.subject,
        text: m.text,
        html: m.html || undefined,
        headers: m.headers,
      });
    },
    close: () => transporter.close(),
  };
}
