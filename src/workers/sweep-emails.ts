import { deliverEmails, type DeliveryReport } from '../core/email/deliver-emails.ts';
import { queueCommissionDigests, queuePayoutEmails } from '../core/email/email-producers.ts';
import { queueMonthlyStatements } from '../core/email/statement-emails.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * The email sweeper (only with SMTP_URL): writes the emails that are due (digests, payout emails,
 * statements), then sends the outbox's due messages. Returns what the delivery did.
 */
export async function sweepEmails(w: WorkerContext): Promise<DeliveryReport | null> {
  if (!w.emailTransport) return null;
  await queueCommissionDigests(w.deps());
  await queuePayoutEmails(w.deps());
  await queueMonthlyStatements(w.deps());
  return deliverEmails(w.deps(), w.emailTransport, {
    attempts: w.config.EMAIL_ATTEMPTS,
    retryBaseMs: w.config.EMAIL_RETRY_BASE_MS,
    leaseMs: w.config.EMAIL_LEASE_MS,
    messageIdHost: w.config.SMTP_FROM.split('@')[1] ?? 'localhost',
  });
}
