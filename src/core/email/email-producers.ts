import { sql } from 'kysely';
import { DAY_MS, type CoreDeps } from '../deps.ts';
import { cents, exactText, typedSql } from '../db/sql.ts';
import { PartnerEmailPrefs } from '../entities/email-settings.ts';
import { queueEmail } from './queue-email.ts';

// The emails no request causes: each producer finds what is due and writes it under a dedupe key,
// so a sweep that runs twice (two workers, a retry) writes each email once.

const startOfDay = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
/** Monday 00:00 UTC of the week of `t`. */
const startOfWeek = (t: Date) => {
  const day = startOfDay(t);
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
};

/**
 * Commission digests: for each partner with an address and digests on, the commissions created
 * since their last digest and before the start of today (daily) or of this week (weekly). A
 * partner without a previous digest gets at most the last week's. Returns how many were written.
 */
export async function queueCommissionDigests(deps: CoreDeps, limit = 200): Promise<number> {
  const now = deps.clock();
  const today = startOfDay(now);
  const due = await typedSql(deps.em)
    .selectFrom('commission as c')
    .innerJoin('partner as p', 'p.id', 'c.partner_id')
    .leftJoin('partner_email_prefs as e', 'e.partner_id', 'c.partner_id')
    .select(['c.partner_id', 'p.program_id'])
    .select((eb) => eb.fn.coalesce('e.commission_digest', sql.lit('daily')).as('digest'))
    .where('p.email', 'is not', null)
    .where('e.unsubscribed_at', 'is', null)
    .where((eb) => eb.fn.coalesce('e.commission_digest', sql.lit('daily')), '<>', 'off')
    .where('c.created_at', '<', today)
    .where((eb) =>
      eb('c.created_at', '>=', eb.fn.coalesce('e.digest_through', sql.val(new Date(today.getTime() - 7 * DAY_MS)))),
    )
    .groupBy(['c.partner_id', 'p.program_id', 'e.commission_digest'])
    .limit(limit)
    .execute();
  let written = 0;
  for (const d of due) {
    const period = d.digest === 'weekly' ? 'weekly' : 'daily';
    const cutoff = period === 'weekly' ? startOfWeek(now) : today;
    written += await deps.em.transactional(async (em) => {
      const tx = { ...deps, em };
      const prefs =
        (await em.findOne(PartnerEmailPrefs, { partner: d.partner_id })) ??
        em.create(PartnerEmailPrefs, { partner: d.partner_id, digestThrough: new Date(today.getTime() - 7 * DAY_MS) });
      const since = prefs.digestThrough!;
      if (since >= cutoff) return 0;
      const rows = await typedSql(em)
        .selectFrom('commission')
        .select(['id', 'currency', 'created_at'])
        .select((eb) => exactText(eb.ref('amount_cents')).as('amount'))
        .where('partner_id', '=', d.partner_id)
        .where('created_at', '>=', since)
        .where('created_at', '<', cutoff)
        .orderBy('id')
        .limit(200)
        .execute();
      prefs.digestThrough = cutoff;
      await em.flush();
      if (!rows.length) return 0;
      const id = await queueEmail(tx, {
        programId: d.program_id,
        dedupeKey: `digest:${d.partner_id}:${cutoff.toISOString()}`,
        recipient: { partnerId: d.partner_id },
        data: {
          kind: 'commission_digest',
          period,
          commissions: rows.map((r) => ({
            id: r.id,
            currency: r.currency,
            amountCents: cents(r.amount),
            createdAt: new Date(r.created_at).toISOString(),
          })),
        },
      });
      return id ? 1 : 0;
    });
  }
  return written;
}

/** Payout emails: paid and failed payouts of the last week with no email yet (partners who want them). */
export async function queuePayoutEmails(deps: CoreDeps, limit = 200): Promise<number> {
  const since = new Date(deps.clock().getTime() - 7 * DAY_MS);
  const rows = await typedSql(deps.em)
    .selectFrom('payout as w')
    .leftJoin('partner_email_prefs as e', 'e.partner_id', 'w.partner_id')
    .select(['w.id', 'w.partner_id', 'w.program_id', 'w.status', 'w.currency', 'w.failure_reason'])
    .select((eb) => exactText(eb.ref('w.amount_cents')).as('amount'))
    .where('e.unsubscribed_at', 'is', null)
    .where((eb) => eb.fn.coalesce('e.payout_emails', sql.lit(true)), '=', true)
    .where((eb) =>
      eb.or([
        eb.and([eb('w.status', '=', 'paid'), eb('w.paid_at', '>=', since)]),
        eb.and([eb('w.status', '=', 'failed'), eb('w.failed_at', '>=', since)]),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('email_message as m')
            .select('m.id')
            .where('m.dedupe_key', '=', sql<string>`'payout_' || w.status || ':' || w.id`),
        ),
      ),
    )
    .orderBy('w.id')
    .limit(limit)
    .execute();
  let written = 0;
  for (const r of rows) {
    const base = { amountCents: cents(r.amount), currency: r.currency, payoutId: r.id };
    const id = await queueEmail(deps, {
      programId: r.program_id,
      dedupeKey: `payout_${r.status}:${r.id}`,
      recipient: { partnerId: r.partner_id },
      data:
        r.status === 'paid'
          ? { kind: 'payout_sent', ...base }
          : { kind: 'payout_failed', ...base, reason: r.failure_reason ?? 'not given' },
    });
    if (id) written++;
  }
  return written;
}
