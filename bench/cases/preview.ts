/**
 * The what-if preview of reward rules (`POST /programs/:id/rules/preview`) over PREVIEW_SALES
 * sales seeded in SQL across the last 29 days, in a program of their own: the time of each call
 * (goal: under 5 s for 100,000 sales) and a check that it changed no row.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN_TOKEN, type BenchContext } from '../config.ts';
import { record } from '../measure.ts';
import { percentile } from '../report.ts';
import { adminCall, seedLoadFixture } from '../../test/helpers/load-fixture.ts';

const PREVIEW_SALES = Number(process.env.BENCH_PREVIEW_SALES ?? 100_000);
const CALLS = 5;
const DAY_S = 86_400;

/** Proposed rules with every kind of step the evaluation has: a sale reward, a product override, tiers. */
const PROPOSED = {
  sale: { type: 'percent', bps: 1200 },
  products: { 'bench-pro': { type: 'flat', amounts: { USD: 900 } } },
  tiers: {
    metric: 'sales',
    period: 'calendar_month',
    steps: [
      { from: 100, reward: { type: 'percent', bps: 1500 } },
      { from: 400, reward: { type: 'flat', amounts: { USD: 500 } } },
    ],
  },
};

/**
 * `count` attributed sales of 10.00 to 105.00 USD with their 10 % pending commissions, in one
 * statement, spread over the last `spreadSeconds` across the program's partners (every
 * `productEvery`th with the product `bench-pro`).
 */
export async function seedAttributedSales(
  db: BenchContext['db'],
  programId: number,
  o: { prefix: string; count: number; spreadSeconds: number; productEvery?: number },
): Promise<void> {
  await db.pool.query(
    `with p as (select array_agg(id order by id) as ids from partner where program_id = $1),
     s as (
       insert into sale (program_id, transaction_id, amount_cents, currency, sale_type, is_recurring, product_id,
                         partner_id, refunded_cents, received_at, attributed_via)
       select $1, $4 || g, 1000 + (g % 96) * 100, 'USD', 'payment', false,
              case when $5::int > 0 and g % $5::int = 0 then 'bench-pro' end,
              p.ids[1 + g % cardinality(p.ids)], 0, now() - ((g::bigint * 7919) % $3) * interval '1 second', 'click'
       from generate_series(1, $2) g, p
       returning id, partner_id, amount_cents, received_at)
     insert into commission (program_id, sale_id, partner_id, amount_cents, reversed_cents, currency, rate_bps,
                             status, created_at, updated_at)
     select $1, id, partner_id, (amount_cents * 1000 + 5000) / 10000, 0, 'USD', 1000, 'pending', received_at, received_at
     from s`,
    [programId, o.count, o.spreadSeconds, o.prefix, o.productEvery ?? 0],
  );
}

export async function runPreview(ctx: BenchContext): Promise<void> {
  const { svc, db } = ctx;
  // A program of its own: the sales the earlier cases recorded (their number follows the host's
  // speed) would otherwise be replayed too, and the case would not measure what it says.
  const f = await seedLoadFixture({
    baseUrl: svc.url,
    adminToken: ADMIN_TOKEN,
    pool: db.pool,
    partners: 200,
    customers: 0,
    tag: `pv${randomBytes(2).toString('hex')}`,
  });
  const seeded = Date.now();
  await seedAttributedSales(db, f.programId, {
    prefix: 'preview-',
    count: PREVIEW_SALES,
    spreadSeconds: 29 * DAY_S,
    productEvery: 10,
  });
  // As autovacuum would after a bulk load: the planner needs the new row counts.
  await db.pool.query('analyze sale, commission');
  console.log(`preview: seeded ${PREVIEW_SALES} sales in ${((Date.now() - seeded) / 1000).toFixed(1)}s`);

  const fingerprint = async () =>
    (
      await db.pool.query(
        `select (select count(*) || ':' || coalesce(sum(amount_cents), 0) || ':' || coalesce(max(updated_at)::text, '') from commission where program_id = $1)
             || '/' || (select count(*) || ':' || coalesce(sum(amount_cents), 0) from sale where program_id = $1) as f`,
        [f.programId],
      )
    ).rows[0].f as string;
  const before = await fingerprint();
  const from = new Date(Date.now() - 30 * DAY_S * 1000).toISOString();
  const times: number[] = [];
  let replayed = 0;
  let errors = 0;
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    try {
      const r = await adminCall(svc.url, ADMIN_TOKEN, 'POST', `/programs/${f.programId}/rules/preview`, {
        reward_rules: PROPOSED,
        from,
      });
      replayed = r.sales;
    } catch (err) {
      errors++;
      console.error(`preview call failed: ${(err as Error).message}`);
    }
    times.push(performance.now() - t0);
  }
  const unchanged = (await fingerprint()) === before;
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (p: number) => Math.round(percentile(sorted, p));
  console.log(
    `preview: ${replayed} sales replayed per call; ${CALLS} calls p50 ${ms(50)} ms, max ${ms(100)} ms (goal < 5000 ms); rows unchanged: ${unchanged}`,
  );
  record(
    ctx,
    {
      case: 'preview',
      concurrency: 1,
      rps: 1000 / ms(50),
      // No raw-pg counterpart (null would read as the baseline itself).
      ratio: NaN,
      latency: { p50: ms(50), p90: ms(90), p99: ms(99), max: ms(100) },
      errors,
      peakRssMiB: null,
      consistent: unchanged && replayed >= PREVIEW_SALES,
      extra: { sales: replayed, callsMs: times.map(Math.round), goalMs: 5000 },
    },
    null,
  );
}
