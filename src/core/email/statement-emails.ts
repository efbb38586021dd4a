import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { cents, exactText, typedSql } from '../db/sql.ts';
import { queueEmail } from './queue-email.ts';

/**
 * Monthly statements: once a month starts, each partner whose balance moved last month (and who
 * wants statements) gets that month's earnings, payouts and current balance per currency. Written
 * once per partner and month (dedupe key). Returns how many were written.
 */
export async function queueMonthlyStatements(deps: CoreDeps, limit = 200): Promise<number> {
  const now = deps.clock();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const month = from.toISOString().slice(0, 7);
  const db = typedSql(deps.em);
  const partners = await db
    .selectFrom('balance_entry as b')
    .innerJoin('partner as p', 'p.id', 'b.partner_id')
    .leftJoin('partner_email_prefs as e', 'e.partner_id', 'b.partner_id')
    .select(['b.partner_id', 'p.program_id'])
    .distinct()
    .where('p.email', 'is not', null)
    .where('e.unsubscribed_at', 'is', null)
    .where((eb) => eb.fn.coalesce('e.statement_emails', sql.lit(true)), '=', true)
    .where('b.created_at', '>=', from)
    .where('b.created_at', '<', to)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('email_message as m')
            .select('m.id')
            .where('m.dedupe_key', '=', sql<string>`'statement:' || b.partner_id || ${':' + month}`),
        ),
      ),
    )
    .limit(limit)
    .execute();
  let written = 0;
  for (const p of partners) {
    const [sums, balances] = await Promise.all([
      db
        .selectFrom('balance_entry')
        .select(['currency', 'kind'])
        .select((eb) => exactText(eb.fn.sum('delta_cents')).as('total'))
        .where('partner_id', '=', p.partner_id)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(['currency', 'kind'])
        .execute(),
      db
        .selectFrom('partner_balance')
        .select('currency')
        .select((eb) => exactText(eb.ref('balance_cents')).as('balance'))
        .where('partner_id', '=', p.partner_id)
        .execute(),
    ]);
    const currencies = [...new Set([...sums.map((s) => s.currency), ...balances.map((b) => b.currency)])].sort();
    const sum = (c: string, kind: string) =>
      sums.filter((s) => s.currency === c && s.kind === kind).reduce((t, s) => t + cents(s.total), 0);
    const id = await queueEmail(deps, {
      programId: p.program_id,
      dedupeKey: `statement:${p.partner_id}:${month}`,
      recipient: { partnerId: p.partner_id },
      data: {
        kind: 'monthly_statement',
        month,
        lines: currencies.map((c) => ({
          currency: c,
          earnedCents: sum(c, 'commission_credit'),
          paidCents: -sum(c, 'payout'),
          balanceCents: cents(balances.find((b) => b.currency === c)?.balance),
        })),
      },
    });
    if (id) written++;
  }
  return written;
}
