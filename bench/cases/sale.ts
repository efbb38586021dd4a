/** Sales through the API, the raw-pg sale baseline, and the metrics on/off comparison. */
import type { TempDatabase } from '../../test/helpers/temp-database.ts';
import { expectedCommission, type LoadFixture } from '../../test/helpers/load-fixture.ts';
import { baselinePoolSize, runBaseline } from '../baseline.ts';
import {
  DURATION_S,
  FEE_BPS,
  LEVELS,
  RATE_BPS,
  amountOf,
  type BenchContext,
  type Run,
  runOf,
  type CaseRun,
} from '../config.ts';
import { cannon, ledger, measureBaseline, numbered, record, rowOf, sampler, type Ledger } from '../measure.ts';

/** The raw-pg sale at each concurrency: the denominator of the sale, webhook and click ratios. */
export async function runSaleBaseline(ctx: BenchContext): Promise<void> {
  const { svc, db, f } = ctx;
  for (const c of LEVELS) {
    const { b, cpu } = await measureBaseline(svc, (onLoadEnd) =>
      runBaseline(db.url, f, {
        concurrency: c,
        durationMs: DURATION_S * 1000,
        prefix: `base${c}-`,
        rateBps: RATE_BPS,
        feeBps: FEE_BPS,
        amount: amountOf,
        onLoadEnd,
      }),
    );
    ctx.baseline.sale.set(c, b.rps);
    const l = ledger();
    for (let i = 0; i < b.completed + b.errors; i++) {
      l.take();
      l.ok.add(i);
    }
    const check = await checkSales(db, f, `base${c}-`, l);
    record(
      ctx,
      {
        case: 'raw pg sale',
        concurrency: c,
        rps: b.rps,
        ratio: null,
        latency: b.latency,
        errors: b.errors,
        peakRssMiB: null,
        consistent: check.ok,
        note: `pool ${baselinePoolSize(c)}`,
        cpu,
        extra: { check },
      },
      null,
    );
  }
}

/**
 * The sale at each concurrency and, with a metrics-off service (`sale-nometrics`), the same run
 * against it in the order on, off, off, on: a host whose load drifts during the four runs weighs
 * on both sides alike (the table shows the first pair).
 */
export async function runSales(ctx: BenchContext): Promise<void> {
  const { noMetrics } = ctx;
  for (const c of LEVELS) {
    const on = record(ctx, await saleCase(runOf(ctx, c, `sale${c}-`), true));
    if (!noMetrics) continue;
    const off = record(ctx, {
      ...(await saleCase(runOf(ctx, c, `salenm${c}-`, noMetrics), true)),
      case: 'sale (metrics off)',
    });
    const off2 = await saleCase(runOf(ctx, c, `salenm${c}b-`, noMetrics), true);
    const on2 = await saleCase(runOf(ctx, c, `sale${c}b-`), true);
    const both = (a: Run, b: Run) => ({
      rps: (a.rps + b.rps) / 2,
      cpu:
        a.cpu?.serviceMsPerRequest && b.cpu?.serviceMsPerRequest
          ? (a.cpu.serviceMsPerRequest * a.rps + b.cpu.serviceMsPerRequest * b.rps) / (a.rps + b.rps)
          : null,
    });
    const onAll = both(on, on2);
    const offAll = both(off, off2);
    // The repeats are checked like every run: one that fails shows in the table (and fails the bench).
    if (on2.consistent === false || on2.errors) ctx.runs.push({ ...on2, case: 'sale (repeat)' });
    if (off2.consistent === false || off2.errors) ctx.runs.push({ ...off2, case: 'sale (metrics off, repeat)' });
    // Throughput lost to metrics, as a share of the throughput without them; CPU per request added.
    const cost = {
      concurrency: c,
      throughputCostPct: offAll.rps ? Math.round(1000 * (1 - onAll.rps / offAll.rps)) / 10 : null,
      cpuPerRequestCostPct: onAll.cpu && offAll.cpu ? Math.round(1000 * (onAll.cpu / offAll.cpu - 1)) / 10 : null,
      onRps: Math.round(onAll.rps),
      offRps: Math.round(offAll.rps),
    };
    ctx.metricsCost.push(cost);
    console.log(
      `metrics cost @${c} (two runs each, on-off-off-on): ${cost.throughputCostPct}% of sale throughput (${cost.onRps} on vs ${cost.offRps} off req/s), ${cost.cpuPerRequestCostPct}% service CPU per request (${onAll.cpu?.toFixed(2)} vs ${offAll.cpu?.toFixed(2)} ms)`,
    );
  }
}

export async function saleCase({ svc, db, f, c, seconds, prefix }: CaseRun, measured: boolean): Promise<Run> {
  const l = ledger();
  const bad = sampler();
  const k = await cannon(
    svc,
    c,
    seconds,
    numbered(l, bad, {
      path: '/api/v1/track/sale',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.liveKey}` },
      build: (i) => ({
        body: JSON.stringify({
          transaction_id: `${prefix}${i}`,
          amount_cents: amountOf(i),
          customer_key: f.customerKey(i % f.customers),
          currency: 'USD',
        }),
      }),
    }),
  );
  const row = rowOf('sale', c, k);
  if (!measured) return row;
  const check = await checkSales(db, f, prefix, l);
  return {
    ...row,
    consistent: check.ok,
    extra: { check, statusCodes: k.res.statusCodeStats, unexpected: bad.samples },
  };
}

/**
 * Sales of a run: a row for every 2xx and none for a failed request, no duplicate transaction,
 * exactly one commission and one platform fee per sale, commission amounts as expected (the
 * amount is a function of the request number, so the sum is recomputed here independently).
 */
export async function checkSales(db: TempDatabase, f: LoadFixture, prefix: string, l: Ledger) {
  const { rows } = await db.pool.query<{
    transaction_id: string;
    commissions: number;
    fees: number;
    commission_cents: string | null;
  }>(
    `select s.transaction_id, count(c.id)::int as commissions, count(pf.id)::int as fees, sum(c.amount_cents) as commission_cents
       from sale s left join commission c on c.sale_id = s.id left join platform_fee pf on pf.sale_id = s.id
      where s.program_id = $1 and s.transaction_id like $2 group by s.id`,
    [f.programId, `${prefix}%`],
  );
  const ids = rows.map((r) => Number(r.transaction_id.slice(prefix.length)));
  const expectedCents = ids.reduce((sum, i) => sum + expectedCommission(amountOf(i), RATE_BPS), 0);
  const gotCents = rows.reduce((sum, r) => sum + Number(r.commission_cents ?? 0), 0);
  const notOneCommission = rows.filter((r) => r.commissions !== 1 || r.fees !== 1).length;
  const cmp = l.compare(ids);
  const ok =
    cmp.missing === 0 &&
    cmp.unexpected === 0 &&
    cmp.duplicates === 0 &&
    notOneCommission === 0 &&
    gotCents === expectedCents;
  return { ok, ...cmp, notOneCommission, commissionCents: gotCents, expectedCommissionCents: expectedCents };
}
