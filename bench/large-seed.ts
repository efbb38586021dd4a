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
import { stageSales, writeInbox, writeLedger } from './large-seed-steps.ts';

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
