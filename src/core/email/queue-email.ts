import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';
import { Partner } from '../entities/partner.ts';
import { Program } from '../entities/program.ts';
import { EmailSettings } from '../entities/email-settings.ts';
import { ACCOUNT_KINDS, renderEmail, type EmailData } from './email-templates.ts';
import { unsubscribeUrl } from './email-prefs.ts';

/** One email to write: to a partner (`partnerId`) or to an applicant (`to`, `name`). */
export type EmailToQueue = {
  programId: number;
  data: EmailData;
  /** Writing the same key twice writes one email (a sweep run again, a retried job). */
  dedupeKey: string;
  recipient: { partnerId: number } | { to: string; name: string };
};

/**
 * Writes an email into the outbox in the caller's transaction (`deps.em`), rendered now with the
 * program's sender name and reply-to. Does nothing when email is off (`deps.mail` absent) or the
 * partner has no address. Returns the row id, or null when nothing was written (off, no address,
 * or the key was written before).
 */
export async function queueEmail(deps: CoreDeps, e: EmailToQueue): Promise<number | null> {
  const mail = deps.mail;
  if (!mail) return null;
  const em = deps.em;
  const partner = 'partnerId' in e.recipient ? await em.findOne(Partner, { id: e.recipient.partnerId }) : null;
  const to = partner ? partner.email : 'to' in e.recipient ? e.recipient.to : null;
  if (!to) return null;
  const [program, settings] = await Promise.all([
    em.findOneOrFail(Program, { id: e.programId }),
    em.findOne(EmailSettings, { program: e.programId }),
  ]);
  const name = partner?.name ?? ('name' in e.recipient ? e.recipient.name : '');
  const body = renderEmail(e.data, { programName: program.name, recipientName: name });
  const optional = partner && !ACCOUNT_KINDS.includes(e.data.kind);
  const now = deps.clock();
  // One statement that writes nothing when the key exists: a unit-of-work insert would throw.
  const row = await typedSql(em)
    .insertInto('email_message')
    .values({
      program_id: e.programId,
      partner_id: partner?.id ?? null,
      kind: e.data.kind,
      dedupe_key: e.dedupeKey,
      to_address: to,
      from_name: settings?.senderName ?? program.name,
      reply_to: settings?.replyTo ?? null,
      subject: body.subject,
      text_body: body.text,
      html_body: body.html,
      unsubscribe_url: optional ? unsubscribeUrl(mail, partner.id) : null,
      sensitive: 'link' in e.data,
      created_at: now,
      attempts: 0,
      next_attempt_at: now,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}
