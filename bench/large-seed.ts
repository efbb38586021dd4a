/**
 * The data-volume seed (`--data large`): a year of one large program written straight into the
 * migrated tables with `insert … select` over `generate_series`, never through the API. At scale 1:
 * 10,000 partners, 10,000,000 clicks over 365 days, 1,000,000 customers (one per tenth click),
 * 1,000,000 sales with their commissions, 100,000 refunds of credited commissions (half full, half
 * partial) with their ledger deductions and the partner's notices, about 50,000 paid payouts, and
 * 1,000,000 webhook inbox rows; `BENCH_DATA_SCALE` multiplies every count.
 *
 * Rows are written oldest first, so ids grow with time as in a live program. Partners are skewed
 * (partner k of n gets a share like u³: the top partner has about 4.6% of all rows). The money is
 * consistent with the ledger's rules: a commission is credited 30 days after its sale (the hold
 * period; a `commission_credit` entry), paid by the partner's payout of the period it was credited
 * in (a `payout` entry) when that payout date is past, and a refund 40 days after the sale deducts
 * the proportional reversal from the balance (a `refund_deduction` entry; refunded commissions are
 * never paid). Every balance is the sum of its entries, and every statement reconciles.
 */
import pg from 'pg';

export type SeedCounts = {
  partners: number;
  clicks: number;
  customers: number;
  sales: number;
  refunds: number;
  payouts: number;
  webhookEvents: number;
  parkedRefunds: number;
};

export const FULL: SeedCounts = {
  partners: 10_000,
  clicks: 10_000_000,
  customers: 1_000_000,
  sales: 1_000_000,
  refunds: 100_000,
  payouts: 50_000,
  webhookEvents: 1_000_000,
  parkedRefunds: 2_000,
};

export const countsAt = (scale: number): SeedCounts =>
  Object.fromEntries(
    Object.entries(FULL).map(([k, v]) => [k, Math.max(k === 'partners' ? 10 : 1, Math.round(v * scale))]),
  ) as SeedCounts;

/** The partner index (0 = the largest) of row `g` of `n` partners: a hash of g, cubed (skewed). */
const PIDX = `create function pg_temp.bd_pidx(g bigint, n int) returns int language sql immutable as
  $$ select least(n - 1, floor(n * power(((g * 2654435761) % 4294967296)::float8 / 4294967296, 3)))::int $$`;

/**
 * Seeds `counts` into program `programId` of the database at `url` (migrated, the program created);
 * returns the seconds each step took. The caller runs `analyze` (the seed does, at the end).
 */
export async function seedLargeProgram(
  url: string,
  programId: number,
  counts: SeedCounts,
  log: (line: string) => void = console.log,
): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const took: Record<string, number> = {};
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    const t0 = performance.now();
    const r = await c.query(sql, params);
    took[name] = Math.round((performance.now() - t0) / 100) / 10;
    log(`  seed ${name}: ${r.rowCount ?? 0} rows in ${took[name]}s`);
    return r;
  };
  try {
    await c.query('set synchronous_commit = off');
    await c.query("set work_mem = '256MB'");
    await c.query(PIDX);
    // One instant for every time below: a year ending now.
    const { rows } = await c.query<{ now: Date }>("select date_trunc('second', now()) as now");
    const now = rows[0]!.now;
    const p = { id: programId, now };
    await step(
      'partners',
      `insert into partner (program_id, code, name, email, created_at)
       select $1, 'bd' || $1::int || '-p' || g, 'Partner ' || g, 'p' || g || '@partners.example',
              $2::timestamptz - interval '400 days' + g * interval '1 minute'
       from generate_series(0, $3 - 1) g`,
      [p.id, now, counts.partners],
    );
    await c.query(
      `create temp table bd_partner as
       select row_number() over (order by id) - 1 as k, id from partner where program_id = $1`,
      [p.id],
    );
    await c.query('create unique index on bd_partner (k)');
    // Clicks in chunks (progress, bounded transactions); ids are random-looking UUIDs as recorded.
    const chunk = 1_000_000;
    for (let from = 1; from <= counts.clicks; from += chunk) {
      const to = Math.min(counts.clicks, from + chunk - 1);
      await step(
        `clicks ${from}–${to}`,
        `insert into click (id, program_id, partner_id, affiliate_url, page_url, visitor_id, clicked_at, created_at)
         select md5($1::int || '-c' || g)::uuid::text, $1, bp.id, 'https://shop.example/?aff=p' || bp.k,
                'https://shop.example/pricing', 'v' || (g % 3000000), t, t
         from generate_series($3::bigint, $4::bigint) g
         cross join lateral (select $2::timestamptz - interval '365 days' + (g - 0.5) * (interval '365 days' / $5::bigint) as t) x
         join bd_partner bp on bp.k = pg_temp.bd_pidx(g, $6)`,
        [p.id, now, from, to, counts.clicks, counts.partners],
      );
    }
    const perClick = Math.max(1, Math.floor(counts.clicks / counts.customers));
    await step(
      'customers',
      `insert into customer (program_id, customer_key, click_id, partner_id, event_name, created_at)
       select $1, 'k' || i, md5($1::int || '-c' || (i * $4))::uuid::text, bp.id, 'signup',
              $2::timestamptz - interval '365 days' + (i * $4 - 0.5) * (interval '365 days' / $5::bigint) + interval '5 minutes'
       from generate_series(1, $3) i
       join bd_partner bp on bp.k = pg_temp.bd_pidx(i * $4, $6)`,
      [p.id, now, counts.customers, perClick, counts.clicks, counts.partners],
    );
    await stageSales(c, p, counts, step);
    await step(
      'sales + commissions',
      `with s as (
         insert into sale (program_id, transaction_id, amount_cents, currency, sale_type, is_recurring, occurred_at,
                           provider, provider_payment_id, customer_id, partner_id, click_id, refunded_cents,
                           received_at, attributed_via)
         select $1, 'tx' || j, amount, 'USD', 'payment', false, received_at,
                case when j % 2 = 0 then 'stripe' end, case when j % 2 = 0 then 'pi_' || j end,
                customer_id, partner_id, click_id, applied, received_at, 'customer_key'
         from bd_sale order by j
         returning id, transaction_id)
       insert into commission (program_id, sale_id, partner_id, amount_cents, reversed_cents, currency, rate_bps,
                               status, credited_at, paid_at, payout_id, created_at, updated_at)
       select $1, s.id, b.partner_id, b.commission, b.deduction, 'USD', 1000, b.status, b.credited_at, b.paid_at,
              b.payout_id, b.received_at, coalesce(b.refunded_at, b.paid_at, b.credited_at, b.received_at)
       from s join bd_sale b on 'tx' || b.j = s.transaction_id
       order by s.id`,
      [p.id],
    );
    await c.query(
      `update bd_sale b set sale_id = s.id from sale s where s.program_id = $1 and s.transaction_id = 'tx' || b.j`,
      [p.id],
    );
    await c.query('update bd_sale b set commission_id = m.id from commission m where m.sale_id = b.sale_id');
    await step(
      'refunds',
      `insert into refund (program_id, sale_id, commission_id, refund_id, requested_cents, applied_cents,
                           deduction_cents, balance_deduction_cents, reason, source, created_at)
       select $1, sale_id, commission_id, 're_' || j, applied, applied, deduction, deduction,
              'requested_by_customer', case when j % 2 = 0 then 'provider' else 'api' end, refunded_at
       from bd_sale where refunded_at is not null order by refunded_at`,
      [p.id],
    );
    await writeLedger(c, p, step);
    await writeInbox(c, p, counts, step);
    const t0 = performance.now();
    await c.query('analyze');
    took.analyze = Math.round((performance.now() - t0) / 100) / 10;
    log(`  seed analyze: ${took.analyze}s`);
    return took;
  } finally {
    await c.end();
  }
}

type Step = (name: string, sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

/**
 * Plans every sale in a temp table: its customer, time, amount, commission, refund (of old enough
 * sales, spread evenly) and status; then the payouts (one per partner and period, the period
 * length chosen so that their number comes closest to `counts.payouts`) and who each pays.
 */
async function stageSales(c: pg.Client, p: { id: number; now: Date }, counts: SeedCounts, step: Step) {
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
async function writeLedger(c: pg.Client, p: { id: number }, step: Step) {
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
async function writeInbox(c: pg.Client, p: { id: number; now: Date }, counts: SeedCounts, step: Step) {
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
