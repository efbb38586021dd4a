/**
 * `npm run bench`: end-to-end throughput of the production setup (PostgreSQL + BullMQ/Redis) on
 * this machine. Starts `node src/main.ts serve` as a child process with its own database and
 * queue prefix, seeds a program, then drives sales, partial refunds, signed Stripe webhooks and
 * clicks with autocannon at several concurrencies. Each figure is compared with a raw-`pg`
 * baseline doing the same database work (one sale for sales, webhooks and clicks; one partial
 * refund of a credited commission for refunds: every commission is credited before the refund
 * runs), and every run ends with a consistency check against the database. Prints a Markdown
 * table; writes `bench/results/<date>.json` and `bench/results/throughput.svg`.
 *
 * Metrics are collected as in a scraped deployment (METRICS_TOKEN set). The `sale-nometrics` case
 * runs the sale case against a second service with METRICS_ENABLED=false around the sale run at
 * each concurrency (on, off, off, on) and prints what metrics cost (throughput and CPU per request);
 * BENCH_METRICS=off runs the whole bench with metrics off.
 *
 * Environment: BENCH_DURATION (seconds per run, default 6), BENCH_CONCURRENCY (default
 * 1,8,32,128), BENCH_CASES (default baseline,sale,sale-nometrics,refund,webhook,click,preview,export;
 * `baseline` runs the raw-pg sale and, with `refund`, the raw-pg refund; `preview` seeds
 * BENCH_PREVIEW_SALES (100,000) sales and times the reward-rules what-if over them; `export` seeds up
 * to BENCH_EXPORT_ROWS (1,000,000) commissions and measures the service's RSS rise while their CSV
 * streams; `starvation`, not in the default, seeds 150,000 sales over 366 days and measures click
 * p99 at 20 clicks/s idle and while 10 clients loop on previews, exports and rollup checks of the
 * program: cases/starvation.ts), DATABASE_URL / REDIS_URL
 * (the servers to use; a fresh database and a unique prefix are created and removed), and the
 * service's own tuning variables (WORKER_CONCURRENCY, DB_POOL_MAX, ...) passed through;
 * BENCH_NODE_OPTIONS is added to the service's NODE_OPTIONS (profiling); BENCH_TOPOLOGY=split runs one
 * `http` and one `worker` process instead of `serve`; BENCH_TOPOLOGY=http-only runs the `http`
 * process alone (no worker: only the webhook case, whose acknowledgements are then measured without
 * any processing; the drain is not measured); BENCH_SERVICE_DIR runs the service from another
 * checkout of this repository (a before/after comparison of its code under the same load);
 * BENCH_LABEL is appended to the file name; BENCH_QUIET_WAIT (seconds, default 60) bounds the wait
 * for an idle host before starting; BENCH_DATABASE runs against an existing database (its own program
 * seeded beside what is there; the database is kept); BENCH_CALLGRIND=<dir> runs the service under
 * valgrind's callgrind and adds instructions per request to each run (callgrind.ts: a count that
 * other load on the host hardly moves; rates and latencies of such a run mean nothing);
 * BENCH_AMOUNT makes each load run a fixed number of requests instead of BENCH_DURATION seconds
 * (the same work on both sides of an instruction-count comparison).
 *
 * `--data large` (or BENCH_DATA=large) runs the data-volume bench instead (data-volume.ts): read
 * paths over a year of one large program seeded in SQL, beside the same paths on a small seed.
 * BENCH_CASES=embedded-memory runs the embedded mode's memory case instead (embedded-memory.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { REPO_ROOT, type ServiceProcess } from '../test/helpers/service-process.ts';
import { createTempDatabase, useExistingDatabase } from '../test/helpers/temp-database.ts';
import { SHARED_REDIS_URL, deleteRedisPrefix } from '../test/helpers/throwaway-redis.ts';
import { readMemoryKiB } from '../test/helpers/proc-stats.ts';
import { seedLoadFixture } from '../test/helpers/load-fixture.ts';
import { markdownTable, throughputSvg } from './report.ts';
import {
  ACK_ONLY,
  ADMIN_TOKEN,
  CASES,
  DATA,
  DEFAULT_CASES,
  DURATION_S,
  FEE_BPS,
  LEVELS,
  METRICS_OFF,
  PASS_THROUGH,
  RATE_BPS,
  SERVICE_DIR,
  TOPOLOGY,
  type BenchContext,
} from './config.ts';
import { describeMachine, gitHead, waitForQuietHost } from './machine.ts';
import { startServices } from './services.ts';
import { measureIdle } from './callgrind.ts';
import { runSaleBaseline, runSales, saleCase } from './cases/sale.ts';
import { creditCommissions, runRefundBaselines, runRefunds } from './cases/refund.ts';
import { runWebhooks, webhookCase } from './cases/webhook.ts';
import { clickCase, runClicks } from './cases/click.ts';
import { runPreview } from './cases/preview.ts';
import { runExport } from './cases/export.ts';
import { runStarvation } from './cases/starvation.ts';
import { runDataVolume } from './data-volume.ts';
import { runEmbeddedMemory } from './embedded-memory.ts';

async function main(): Promise<void> {
  if (DATA === 'large') return runDataVolume();
  if (DATA !== undefined) throw new Error(`--data ${DATA}: only "large" is known`);
  // Embedded mode has no PostgreSQL or Redis to share with the load cases: a case of its own.
  if (CASES.includes('embedded-memory')) {
    if (CASES.length > 1) throw new Error('BENCH_CASES=embedded-memory runs alone');
    return runEmbeddedMemory();
  }
  const started = Date.now();
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const machine = describeMachine();
  if (ACK_ONLY && CASES.some((c) => c !== 'webhook'))
    throw new Error('BENCH_TOPOLOGY=http-only runs no worker: only the webhook case (BENCH_CASES=webhook) can run');
  const quiet = await waitForQuietHost(Number(process.env.BENCH_QUIET_WAIT ?? 60));
  console.log(`host CPU busy before start: ${quiet.busyPct}% (${quiet.waitedSeconds}s waited for < 25%)`);
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB; node ${process.version}; ${DURATION_S}s per run; connections ${LEVELS.join(', ')}`,
  );

  // BENCH_DATABASE: an existing database (the data-volume bench's seeds), kept afterwards.
  const db = process.env.BENCH_DATABASE
    ? await useExistingDatabase(process.env.BENCH_DATABASE, SERVICE_DIR)
    : await createTempDatabase('bench', SERVICE_DIR);
  const processes: ServiceProcess[] = [];
  try {
    const { env, svc, noMetrics } = await startServices(db, prefix, processes);
    const f = await seedLoadFixture({
      baseUrl: svc.url,
      adminToken: ADMIN_TOKEN,
      pool: db.pool,
      partners: 200,
      customers: 20_000,
      commissionRateBps: RATE_BPS,
      platformFeeBps: FEE_BPS,
      // Referral codes are unique across programs: a kept database gets a new tag each run.
      tag: process.env.BENCH_DATABASE ? `b${randomBytes(2).toString('hex')}` : 'b',
    });
    console.log(
      `seeded program ${f.programId}: ${f.partnerCodes.length} partners, ${f.customers} customers/clicks (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );

    // Warm-up (JIT, connection pools, Redis scripts), not measured.
    if (ACK_ONLY) await webhookCase({ svc, db, f, c: 8, seconds: 2, prefix: 'warmwh' });
    else {
      await saleCase({ svc, db, f, c: 8, seconds: 2, prefix: 'warm-' }, false);
      await clickCase({ svc, db, f, c: 8, seconds: 1, prefix: 'warmclick-' }, false);
    }
    if (noMetrics) await saleCase({ svc: noMetrics, db, f, c: 8, seconds: 2, prefix: 'warmnm-' }, false);
    // Statistics for the tables the warm-up wrote, as autovacuum would have them on a database in
    // use: a table analysed while empty lets the planner pick `(program_id, received_at)` over the
    // unique `(program_id, transaction_id)` for a sale lookup (equal estimates), which then reads
    // every sale of the program per call and slows each run as its table grows.
    await db.pool.query('analyze');
    // Under callgrind: what the service does per second at rest, subtracted from each run's count.
    await measureIdle(svc.pids, 60);

    const ctx: BenchContext = {
      svc,
      noMetrics,
      db,
      f,
      runs: [],
      baseline: { sale: new Map(), refund: new Map() },
      metricsCost: [],
      metricsToken: env.METRICS_TOKEN!,
    };
    if (CASES.includes('baseline')) await runSaleBaseline(ctx);
    if (CASES.includes('sale')) await runSales(ctx);
    if (CASES.includes('refund') || CASES.includes('baseline')) {
      // Refunds of credited commissions (the path that also moves the partner balance).
      console.log(`credited ${await creditCommissions(db, f)} commissions before the refund runs`);
    }
    if (CASES.includes('refund') && CASES.includes('baseline')) await runRefundBaselines(ctx);
    if (CASES.includes('refund')) await runRefunds(ctx);
    if (CASES.includes('webhook')) await runWebhooks(ctx);
    if (CASES.includes('click')) await runClicks(ctx);
    if (CASES.includes('preview')) await runPreview(ctx);
    if (CASES.includes('export')) await runExport(ctx);
    if (CASES.includes('starvation')) await runStarvation(ctx);

    const peak = svc.pids.map(readMemoryKiB).reduce((sum, m) => sum + (m?.hwm ?? 0), 0);
    saveResults(ctx, {
      date: new Date().toISOString(),
      machine,
      hostBusyBeforeStartPct: quiet.busyPct,
      node: process.version,
      durationSeconds: DURATION_S,
      levels: LEVELS,
      serviceEnv: Object.fromEntries(Object.entries(env).filter(([k]) => PASS_THROUGH.includes(k))),
      topology: TOPOLOGY,
      ...(SERVICE_DIR ? { serviceDir: SERVICE_DIR, serviceCommit: gitHead(SERVICE_DIR) } : {}),
      metrics: METRICS_OFF ? 'off' : 'on',
      metricsCost: ctx.metricsCost,
      servicePeakRssMiB: peak ? Math.round(peak / 1024) : null,
      totalSeconds: Math.round((Date.now() - started) / 1000),
      runs: ctx.runs,
    });
  } finally {
    await Promise.all(processes.map((p) => p.stop(20_000)));
    await db.drop();
    await deleteRedisPrefix(SHARED_REDIS_URL, prefix).catch(() => {});
  }
}

/**
 * Writes `bench/results/<date><suffix>.json` and the throughput chart, prints the table and fails
 * the bench (exit code 1) when a run had errors or failed its consistency check.
 */
function saveResults(
  ctx: BenchContext,
  result: { machine: { cpus: number }; servicePeakRssMiB: number | null; totalSeconds: number; [k: string]: unknown },
): void {
  const { runs, metricsCost } = ctx;
  // Partial or labelled runs never overwrite the chart of the full default run.
  const partial = LEVELS.join() !== '1,8,32,128' || CASES.join() !== DEFAULT_CASES || METRICS_OFF;
  const suffix = `${TOPOLOGY === 'serve' ? '' : `-${TOPOLOGY}`}${METRICS_OFF ? '-nometrics' : ''}${process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : ''}${partial ? '-partial' : ''}`;
  const at = `${new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '')}${suffix}`;
  const dir = `${REPO_ROOT}bench/results`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${at}.json`, `${JSON.stringify(result, null, 2)}\n`);
  const series = [...new Set(runs.map((r) => r.case))].map((name) => ({
    name,
    points: runs.filter((r) => r.case === name).map((r) => ({ x: r.concurrency, y: r.rps })),
  }));
  writeFileSync(
    `${dir}/throughput${suffix}.svg`,
    throughputSvg(series, `Throughput vs concurrency (${TOPOLOGY}, ${result.machine.cpus} cores, ${DURATION_S}s runs)`),
  );
  console.log(`\n${markdownTable(runs)}\n`);
  console.log(`service peak RSS (VmHWM): ${result.servicePeakRssMiB} MiB; total ${result.totalSeconds}s`);
  for (const m of metricsCost)
    console.log(
      `metrics cost @${m.concurrency}: ${m.throughputCostPct}% of sale throughput, ${m.cpuPerRequestCostPct}% service CPU per request`,
    );
  console.log(`wrote bench/results/${at}.json and bench/results/throughput${suffix}.svg`);
  const bad = runs.filter((r) => r.errors > 0 || r.consistent === false);
  if (bad.length) {
    console.error(`\n${bad.length} run(s) had errors or failed the consistency check:`);
    for (const r of bad)
      console.error(
        `  ${r.case} @${r.concurrency}: errors ${r.errors}, consistent ${r.consistent} ${JSON.stringify(r.extra)}`,
      );
    process.exitCode = 1;
  }
}

const hardStop = setTimeout(
  () => {
    console.error(`bench exceeded ${DATA ? 90 : 20} minutes; aborting`);
    process.exit(2);
  },
  (DATA ? 90 : 20) * 60_000,
);
hardStop.unref();
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
