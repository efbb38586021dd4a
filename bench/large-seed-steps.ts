/**
 * The larger steps of the data-volume seed (large-seed.ts), each a few `insert … select`
 * statements: the sales plan with its payouts, the ledger in time order, the webhook inbox.
 */
import type pg from 'pg';
import type { SeedCounts } from './large-seed.ts';

/** Runs one named statement of the seed (timed and logged by the caller). */
export type Step = (name: string, sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/**
 * Plans every sale in a temp table: its customer, time, amount, commission, refund (of old enough
 * sales, spread evenly) and status; then the payouts (one per partner and period, the period
 * length chosen so that their number comes closest to `counts.payouts`) and who each pays.
 */
export async function stageSales(c: pg.Client, p: { id: number; now: Date }, counts: SeedCounts, step: Step) {
  await step(
    'stage sales',
    `create temp table bd_sale as
     select j, cu.id as customer_id, cu.partner_id, cu.click_id,
            least($1::timestamptz - interval '1 minute', cu.created_at + interval '1 hour') as received_at,
            (1000 + (j % 96) * 100)::bigint as amount, ((1000 + (j % 96) * 100) * 1000 + 5000) / 10000 as commission,
            0::bigint as applied, 0::bigint as deduction, null::timestamptz as refunded_at,
            null::timestamptz as credited_at, null::timestamptz as paid_at, null::int as payout_id,
            'pending'::text as status, null::int as sale_id, null::int as commission_id
     from generate_series(1, $2) j
     join customer cu on cu.program_id = $3 and cu.customer_key = 'k' || (1 + (j - 1) % $4)`,
    [p.now, counts.sales, p.id, counts.customers],
  );
  await c.query('create unique index on bd_sale (j)');
  // Refunds: evenly among the sales at least 40 days old; every other one refunds the whole sale.
  const old = Number(
    (
      await c.query(`select count(*) as n from bd_sale where received_at < $1::timestamptz - interval '40 days'`, [
        p.now,
      ])
    ).rows[0].n,
  );
  const r = Math.min(counts.refunds, old);
  await c.query(
    `update bd_sale set refunded_at = received_at + interval '40 days',
            applied = case when j % 2 = 0 then amount else amount / 2 end
     where j <= $1 and floor(j::numeric * $2 / $1) > floor((j - 1)::numeric * $2 / $1)`,
    [old, r],
  );
  await c.query(
    `update bd_sale set deduction = (commission * applied * 2 + amount) / (2 * amount),
            status = case when applied = amount then 'reversed' else 'refunded' end
     where refunded_at is not null`,
  );
  // Credited after the 30-day hold; those within a day of it too (at most now), so that the running
  // service's approval sweep finds nothing due while the seed runs (it would post balances of its own).
  await c.query(
    `update bd_sale set credited_at = least($1::timestamptz, received_at + interval '30 days'),
            status = case when refunded_at is null then 'approved' else status end
     where received_at < $1::timestamptz - interval '29 days'`,
    [p.now],
  );
  // The payout period whose (partner, period) pairs come closest to the wanted payout count.
  const start = `($1::timestamptz - interval '335 days')`;
  const periods = [7, 10, 14, 21, 30, 45, 61, 91];
  const { rows } = await c.query(
    `select ${periods
      .map(
        (d) =>
          `count(distinct (partner_id, floor(extract(epoch from credited_at - ${start}) / ${d * 86_400}))) as d${d}`,
      )
      .join(', ')}
     from bd_sale where status = 'approved' and credited_at + interval '${periods[0]} days' < $1`,
    [p.now],
  );
  const days = periods.reduce((best, d) =>
    Math.abs(Number(rows[0][`d${d}`]) - counts.payouts) < Math.abs(Number(rows[0][`d${best}`]) - counts.payouts)
      ? d
      : best,
  );
  console.log(`  seed payouts: one per partner and ${days}-day period (~${rows[0][`d${days}`]} payouts)`);
  // A commission is paid the day after its crediting period ends, if that day is past.
  await c.query(
    `update bd_sale set paid_at = ${start} + (floor(extract(epoch from credited_at - ${start}) / $2) + 1) * $2 * interval '1 second' + interval '1 day'
     where status = 'approved'`,
    [p.now, days * 86_400],
  );
  await c.query(`update bd_sale set paid_at = null where paid_at > $1`, [p.now]);
  await c.query(`update bd_sale set status = 'paid' where paid_at is not null`);
  await step(
    'payouts',
    `insert into payout (program_id, partner_id, currency, amount_cents, requested_cents, status, created_at, paid_at,
                         commissions_cents, netted_cents, rail, external_id)
     select $1, partner_id, 'USD', sum(commission), null, 'paid', paid_at - interval '1 hour', paid_at,
            sum(commission), 0, 'manual', 'bd-' || partner_id || '-' || extract(epoch from paid_at)::bigint
     from bd_sale where paid_at is not null group by partner_id, paid_at order by paid_at, partner_id`,
    [p.id],
  );
  await c.query(
    `update bd_sale b set payout_id = y.id from payout y
     where y.program_id = $1 and b.paid_at is not null
       and y.external_id = 'bd-' || b.partner_id || '-' || extract(epoch from b.paid_at)::bigint`,
    [p.id],
  );
}

/** The ledger in time order (credits, deductions, payouts), each partner's balance as their sum, the partners' notices. */
export async function writeLedger(c: pg.Client, p: { id: number }, step: Step) {
  await step(
    'balance entries',
    `insert into balance_entry (partner_id, currency, delta_cents, kind, commission_id, refund_id, payout_id, created_at)
     select partner_id, 'USD', delta, kind, commission_id, refund_id, payout_id, at from (
       select partner_id, commission as delta, 'commission_credit' as kind, commission_id, null::int as refund_id,
              null::int as payout_id, credited_at as at
       from bd_sale where credited_at is not null
       union all
       select b.partner_id, -b.deduction, 'refund_deduction', b.commission_id, r.id, null, b.refunded_at
       from bd_sale b join refund r on r.sale_id = b.sale_id where b.refunded_at is not null
       union all
       select partner_id, -amount_cents, 'payout', null, null, id, paid_at from payout where program_id = $1
     ) e order by at, kind`,
    [p.id],
  );
  await step(
    'balances',
    `insert into partner_balance (partner_id, currency, balance_cents)
     select e.partner_id, e.currency, sum(e.delta_cents) from balance_entry e
     join partner pa on pa.id = e.partner_id and pa.program_id = $1 group by 1, 2`,
    [p.id],
  );
  await step(
    'notifications',
    `insert into notification (program_id, kind, partner_id, commission_id, payload, created_at, delivered_at, read_at)
     select $1, 'partner_commission_refunded', partner_id, commission_id,
            jsonb_build_object('commission_id', commission_id, 'sale_id', sale_id, 'status', status,
                               'deduction_cents', deduction, 'refunded_cents', applied),
            refunded_at, refunded_at + interval '2 seconds',
            case when refunded_at < now() - interval '60 days' then refunded_at + interval '3 days' end
     from bd_sale where refunded_at is not null order by refunded_at`,
    [p.id],
  );
}

/** Webhook inbox rows over the year (payloads older than 30 days redacted, as the sweeper does) and parked refunds. */
export async function writeInbox(c: pg.Client, p: { id: number; now: Date }, counts: SeedCounts, step: Step) {
  const chunk = 500_000;
  for (let from = 1; from <= counts.webhookEvents; from += chunk) {
    const to = Math.min(counts.webhookEvents, from + chunk - 1);
    await step(
      `webhook events ${from}–${to}`,
      `insert into webhook_event (provider, program_id, dedupe_key, event_type, payload, normalised, status, outcome,
                                  error, attempts, received_at, processed_at, payload_redacted_at)
       select 'stripe', $1, 'evt_' || g, kind,
              case when redacted then jsonb_build_object('id', 'evt_' || g, 'type', kind, 'redacted', true)
                   else jsonb_build_object('id', 'evt_' || g, 'object', 'event', 'type', kind, 'created', extract(epoch from t)::bigint,
                        'data', jsonb_build_object('object', jsonb_build_object('id', 'cs_' || g, 'payment_intent', 'pi_' || g,
                          'amount_total', 1000 + (g % 96) * 100, 'currency', 'usd', 'customer_email', 'buyer' || g || '@example.com',
                          'metadata', jsonb_build_object('tracker_customer_key', 'k' || g, 'program_id', $1::int::text)))) end,
              jsonb_build_array(jsonb_build_object('kind', 'sale', 'transaction_id', 'pi_' || g, 'amount_cents', 1000 + (g % 96) * 100)),
              status, case when status = 'processed' then jsonb_build_array(jsonb_build_object('sale_id', g)) end,
              case when status = 'ignored' then 'no customer key or code' when status = 'failed' then 'sale not recorded yet' end,
              1, t, case when status <> 'pending' then t + interval '1 second' end, case when redacted then t + interval '30 days' end
       from generate_series($2::bigint, $3::bigint) g
       cross join lateral (select $4::timestamptz - interval '365 days' + (g - 0.5) * (interval '365 days' / $5::bigint) as t) x
       cross join lateral (select t < $4::timestamptz - interval '30 days' as redacted,
                                  case when g % 10 = 9 then 'charge.refunded' else 'checkout.session.completed' end as kind,
                                  case when g % 50 = 7 then 'ignored' when g % 200 = 11 then 'failed' else 'processed' end as status) y`,
      [p.id, from, to, p.now, counts.webhookEvents],
    );
  }
  await step(
    'parked refunds',
    `insert into parked_refund (program_id, provider, transaction_id, dedupe_key, job, status, parked_at, resolved_at)
     select $1, 'stripe', 'pi_missing_' || g, 'stripe:re_missing_' || g,
            jsonb_build_object('programId', $1::int, 'transactionId', 'pi_missing_' || g, 'refundId', 're_missing_' || g,
                               'amountCents', 500, 'origin', 'provider'),
            case when g % 4 = 0 then 'parked' else 'unmatched' end, t,
            case when g % 4 = 0 then null else t + interval '7 days' end
     from generate_series(1, $2) g
     cross join lateral (select $3::timestamptz - interval '365 days' + (g - 0.5) * (interval '365 days' / $2::bigint) as t) x`,
    [p.id, counts.parkedRefunds, p.now],
  );
}
