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
 * 1,8,32,128), BENCH_CASES (default baseline,sale,sale-nometrics,refund,webhook,click; `baseline`
 * runs the raw-pg sale and, with `refund`, the raw-pg refund), DATABASE_URL / REDIS_URL
 * (the servers to use; a fresh database and a unique prefix are created and removed), and the
 * service's own tuning variables (WORKER_CONCURRENCY, DB_POOL_MAX, ...) passed through;
 * BENCH_NODE_OPTIONS is added to the service's NODE_OPTIONS (profiling); BENCH_TOPOLOGY=split runs one
 * `http` and one `worker` process instead of `serve`; BENCH_TOPOLOGY=http-only runs the `http`
 * process alone (no worker: only the webhook case, whose acknowledgements are then measured without
 * any processing; the drain is not measured); BENCH_SERVICE_DIR runs the service from another
 * checkout of this repository (a before/after comparison of its code under the same load);
 * BENCH_LABEL is appended to the file name; BENCH_QUIET_WAIT (seconds, default 60) bounds the wait
 * for an idle host before starting.
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import autocannon, { type Result as CannonResult } from 'autocannon';
import {
  REPO_ROOT,
  SHARED_REDIS_URL,
  createTempDatabase,
  deleteRedisPrefix,
  readAllProcessCpu,
  readCpuTimes,
  readHostCpu,
  readMemoryKiB,
  startService,
  type ServiceProcess,
  type TempDatabase,
} from '../test/helpers/service-process.ts';
import {
  expectedCommission,
  seedLoadFixture,
  signedStripeCheckout,
  type LoadFixture,
} from '../test/helpers/load-fixture.ts';
import { runBaseline, runRefundBaseline, baselinePoolSize } from './baseline.ts';
import { markdownTable, throughputSvg, type Row } from './report.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,8,32,128').split(',').map(Number);
const TOPOLOGY = (['split', 'http-only'] as const).find((t) => t === process.env.BENCH_TOPOLOGY) ?? 'serve';
/** No worker runs: webhooks are stored and acknowledged, never processed. */
const ACK_ONLY = TOPOLOGY === 'http-only';
const SERVICE_DIR = process.env.BENCH_SERVICE_DIR ? `${resolve(process.env.BENCH_SERVICE_DIR)}/` : undefined;
const DEFAULT_CASES = 'baseline,sale,sale-nometrics,refund,webhook,click';
const CASES = (process.env.BENCH_CASES ?? (ACK_ONLY ? 'webhook' : DEFAULT_CASES)).split(',');
const METRICS_OFF = process.env.BENCH_METRICS === 'off';
/** The V8 options of `npm start` (the Dockerfile's NODE_OPTIONS are the same): what is deployed is measured. */
const SERVICE_NODE_OPTIONS = (
  JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((a) => a.startsWith('--'))
  .join(' ');
const RATE_BPS = 1_000;
const FEE_BPS = 200;
const REFUND_CENTS = 50;
const ADMIN_TOKEN = `bench-admin-${randomBytes(16).toString('hex')}`;
const PASS_THROUGH = [
  'WORKER_CONCURRENCY',
  'DB_POOL_MAX',
  'JOB_WAIT_TIMEOUT_MS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_ATTEMPTS',
  'SWEEP_INTERVAL_MS',
  'LOG_LEVEL',
];

/** Sale amounts vary (10.00 to 105.00) so commission sums catch a wrong row, not only a wrong count. */
const amountOf = (i: number) => 1_000 + (i % 96) * 100;

type Extra = Record<string, unknown>;
/** What the load is aimed at: the HTTP base URL and every process of the service. */
type Target = { url: string; pids: number[] };
type Run = Row & { extra?: Extra };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const started = Date.now();
  const id = randomBytes(3).toString('hex');
  const prefix = `bench${id}`;
  const machine = describeMachine();
  if (ACK_ONLY && CASES.some((c) => c !== 'webhook'))
    throw new Error('BENCH_TOPOLOGY=http-only runs no worker: only the webhook case (BENCH_CASES=webhook) can run');
  const quiet = await waitForQuietHost(Number(process.env.BENCH_QUIET_WAIT ?? 60));
  console.log(`host CPU busy before start: ${quiet.busyPct}% (${quiet.waitedSeconds}s waited for < 25%)`);
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB; node ${process.version}; ${DURATION_S}s per run; connections ${LEVELS.join(', ')}`,
  );

  const db = await createTempDatabase('bench', SERVICE_DIR);
  const start = (...[role, env, o]: Parameters<typeof startService>) =>
    startService(role, env, { ...o, dir: SERVICE_DIR });
  const services: ServiceProcess[] = [];
  const runs: Run[] = [];
  try {
    const env: Record<string, string> = {
      DATABASE_URL: db.url,
      REDIS_URL: SHARED_REDIS_URL,
      ADMIN_TOKEN,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      DEMO_SEED: 'false',
      // One load generator is one client: the per-client limits stay on (their cost is measured)
      // with budgets it cannot reach.
      CLICK_LIMIT_PER_MINUTE: '100000000',
      BROWSER_LEAD_LIMIT_PER_MINUTE: '100000000',
      WEBHOOK_LIMIT_PER_MINUTE: '100000000',
      STATUS_LIMIT_PER_MINUTE: '100000000',
      // Collected as in a deployment that scrapes them (the default without a token is off).
      METRICS_TOKEN: `bench-metrics-${randomBytes(8).toString('hex')}`,
      ...(METRICS_OFF ? { METRICS_ENABLED: 'false' } : {}),
    };
    for (const k of PASS_THROUGH) if (process.env[k]) env[k] = process.env[k] as string;
    // The V8 options of the image and `npm start` (Dockerfile); BENCH_NODE_OPTIONS adds to them,
    // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the service.
    env.NODE_OPTIONS = [SERVICE_NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS].filter(Boolean).join(' ');
    // serve: HTTP and workers in one process (the default deployment); split: one `http` and one
    // `worker` process (the scale-out path), to show what a second process buys on this machine;
    // http-only: the `http` process alone (what acknowledging webhooks costs, without processing them).
    if (TOPOLOGY === 'split') {
      services.push(await start('http', env), await start('worker', env, { workerReadyAfterMs: 1_500 }));
    } else {
      services.push(await start(TOPOLOGY === 'http-only' ? 'http' : 'serve', env));
    }
    const svc: Target = { url: services[0]!.url, pids: services.map((p) => p.pid) };
    console.log(
      `service (${TOPOLOGY}) pids ${svc.pids.join(', ')} at ${svc.url} (${Object.entries(env)
        .filter(([k]) => PASS_THROUGH.includes(k))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}; metrics ${METRICS_OFF ? 'off' : 'on'})${SERVICE_DIR ? ` from ${SERVICE_DIR}` : ''}`,
    );
    // The metrics A/B: the same service with collection off, its own queues, the same database.
    let noMetrics: Target | null = null;
    if (CASES.includes('sale-nometrics') && !METRICS_OFF) {
      const env2 = { ...env, QUEUE_PREFIX: `${prefix}nm`, METRICS_ENABLED: 'false' };
      const p =
        TOPOLOGY === 'split'
          ? [await start('http', env2), await start('worker', env2, { workerReadyAfterMs: 1_500 })]
          : [await start('serve', env2)];
      services.push(...p);
      noMetrics = { url: p[0]!.url, pids: p.map((x) => x.pid) };
      console.log(`service with METRICS_ENABLED=false pids ${noMetrics.pids.join(', ')} at ${noMetrics.url}`);
    }

    const f = await seedLoadFixture({
      baseUrl: svc.url,
      adminToken: ADMIN_TOKEN,
      pool: db.pool,
      partners: 200,
      customers: 20_000,
      commissionRateBps: RATE_BPS,
      platformFeeBps: FEE_BPS,
      tag: 'b',
    });
    console.log(
      `seeded program ${f.programId}: ${f.partnerCodes.length} partners, ${f.customers} customers/clicks (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );

    // Warm-up (JIT, connection pools, Redis scripts), not measured.
    if (ACK_ONLY) await webhookCase(svc, db, f, 8, 2, 'warmwh');
    else {
      await saleCase(svc, db, f, 8, 2, 'warm-', false);
      await clickCase(svc, db, f, 8, 1, 'warmclick-', false);
    }
    if (noMetrics) await saleCase(noMetrics, db, f, 8, 2, 'warmnm-', false);

    const baseline = new Map<number, number>();
    const refundBaseline = new Map<number, number>();
    for (const c of LEVELS) {
      if (!CASES.includes('baseline')) break;
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
      baseline.set(c, b.rps);
      const l = ledger();
      for (let i = 0; i < b.completed + b.errors; i++) {
        l.take();
        l.ok.add(i);
      }
      const check = await checkSales(db, f, `base${c}-`, l);
      runs.push({
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
      });
      report(runs.at(-1) as Run);
    }
    const withRatio = (r: Run, of = baseline): Run => ({
      ...r,
      ratio: of.has(r.concurrency) ? r.rps / (of.get(r.concurrency) as number) : NaN,
    });
    const metricsCost: Array<Record<string, number | null>> = [];
    for (const c of LEVELS) {
      if (!CASES.includes('sale')) break;
      const on = withRatio(await saleCase(svc, db, f, c, DURATION_S, `sale${c}-`, true));
      runs.push(on);
      report(on);
      if (!noMetrics) continue;
      const off = withRatio({
        ...(await saleCase(noMetrics, db, f, c, DURATION_S, `salenm${c}-`, true)),
        case: 'sale (metrics off)',
      });
      runs.push(off);
      report(off);
      // A second pair in the reverse order (on, off, off, on), so a host whose load drifts during
      // the four runs weighs on both sides alike; the table shows the first pair.
      const off2 = await saleCase(noMetrics, db, f, c, DURATION_S, `salenm${c}b-`, true);
      const on2 = await saleCase(svc, db, f, c, DURATION_S, `sale${c}b-`, true);
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
      if (on2.consistent === false || on2.errors) runs.push({ ...on2, case: 'sale (repeat)' });
      if (off2.consistent === false || off2.errors) runs.push({ ...off2, case: 'sale (metrics off, repeat)' });
      // Throughput lost to metrics, as a share of the throughput without them; CPU per request added.
      const cost = {
        concurrency: c,
        throughputCostPct: offAll.rps ? Math.round(1000 * (1 - onAll.rps / offAll.rps)) / 10 : null,
        cpuPerRequestCostPct: onAll.cpu && offAll.cpu ? Math.round(1000 * (onAll.cpu / offAll.cpu - 1)) / 10 : null,
        onRps: Math.round(onAll.rps),
        offRps: Math.round(offAll.rps),
      };
      metricsCost.push(cost);
      console.log(
        `metrics cost @${c} (two runs each, on-off-off-on): ${cost.throughputCostPct}% of sale throughput (${cost.onRps} on vs ${cost.offRps} off req/s), ${cost.cpuPerRequestCostPct}% service CPU per request (${onAll.cpu?.toFixed(2)} vs ${offAll.cpu?.toFixed(2)} ms)`,
      );
    }
    if (CASES.includes('refund') || CASES.includes('baseline')) {
      // Refunds of credited commissions (the path that also moves the partner balance).
      const credited = await creditCommissions(db, f);
      console.log(`credited ${credited} commissions before the refund runs`);
    }
    if (CASES.includes('refund') && CASES.includes('baseline')) {
      const { rows } = await db.pool.query<{ transaction_id: string }>(
        `select transaction_id from sale where program_id = $1 and transaction_id like 'base%' order by id`,
        [f.programId],
      );
      const targets = rows.map((r) => r.transaction_id);
      for (const c of LEVELS) {
        if (!targets.length) break;
        const { b, cpu } = await measureBaseline(svc, (onLoadEnd) =>
          runRefundBaseline(db.url, f, {
            concurrency: c,
            durationMs: DURATION_S * 1000,
            prefix: `baserf${c}-`,
            targets,
            refundCents: REFUND_CENTS,
            onLoadEnd,
          }),
        );
        refundBaseline.set(c, b.rps);
        const check = await checkRefunds(db, f, `baserf${c}-`);
        const ok = check.ok && check.rows === b.completed - (b.skipped ?? 0);
        runs.push({
          case: 'raw pg refund',
          concurrency: c,
          rps: b.rps,
          ratio: null,
          latency: b.latency,
          errors: b.errors,
          peakRssMiB: null,
          consistent: ok,
          note: `pool ${baselinePoolSize(c)}`,
          cpu,
          extra: { check: { ...check, ok, completed: b.completed, reversedCents: b.commissionCents } },
        });
        report(runs.at(-1) as Run);
      }
    }
    if (CASES.includes('refund')) {
      const { rows } = await db.pool.query<{ transaction_id: string }>(
        `select transaction_id from sale where program_id = $1 and transaction_id not like 'base%' order by id`,
        [f.programId],
      );
      const targets = rows.map((r) => r.transaction_id);
      let offset = 0;
      for (const c of LEVELS) {
        const r = await refundCase(svc, db, f, c, DURATION_S, `rf${c}-`, targets, offset);
        offset += Number((r.extra as Extra).sent);
        runs.push(withRatio(r, refundBaseline));
        report(runs.at(-1) as Run);
      }
    }
    for (const c of LEVELS) {
      if (!CASES.includes('webhook')) break;
      for (const r of await webhookCase(svc, db, f, c, DURATION_S, `wh${c}x`)) {
        runs.push(withRatio(r));
        report(r);
      }
    }
    for (const c of LEVELS)
      if (CASES.includes('click')) {
        runs.push(withRatio(await clickCase(svc, db, f, c, DURATION_S, `click${c}-`, true)));
        report(runs.at(-1) as Run);
      }

    const peak = svc.pids.map(readMemoryKiB).reduce((sum, m) => sum + (m?.hwm ?? 0), 0);
    // Partial or labelled runs never overwrite the chart of the full default run.
    const partial = LEVELS.join() !== '1,8,32,128' || CASES.join() !== DEFAULT_CASES || METRICS_OFF;
    const suffix = `${TOPOLOGY === 'serve' ? '' : `-${TOPOLOGY}`}${METRICS_OFF ? '-nometrics' : ''}${process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : ''}${partial ? '-partial' : ''}`;
    const at = `${new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '')}${suffix}`;
    const dir = `${REPO_ROOT}bench/results`;
    mkdirSync(dir, { recursive: true });
    const table = markdownTable(runs);
    const result = {
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
      metricsCost,
      servicePeakRssMiB: peak ? Math.round(peak / 1024) : null,
      totalSeconds: Math.round((Date.now() - started) / 1000),
      runs,
    };
    writeFileSync(`${dir}/${at}.json`, `${JSON.stringify(result, null, 2)}\n`);
    const series = [...new Set(runs.map((r) => r.case))].map((name) => ({
      name,
      points: runs.filter((r) => r.case === name).map((r) => ({ x: r.concurrency, y: r.rps })),
    }));
    writeFileSync(
      `${dir}/throughput${suffix}.svg`,
      throughputSvg(series, `Throughput vs concurrency (${TOPOLOGY}, ${machine.cpus} cores, ${DURATION_S}s runs)`),
    );
    console.log(`\n${table}\n`);
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
  } finally {
    await Promise.all(services.map((p) => p.stop(20_000)));
    await db.drop();
    await deleteRedisPrefix(SHARED_REDIS_URL, prefix).catch(() => {});
  }
}

function report(r: Run): void {
  const withDelivery = (r.extra as Extra | undefined)?.serviceCpuMsPerRefundWithDelivery;
  if (withDelivery !== undefined)
    console.log(`  service CPU per refund including its notification delivery: ${withDelivery} ms`);
  const ratio = r.ratio === null ? '' : ` (${(r.ratio * 100).toFixed(0)}% of raw pg)`;
  console.log(
    `${r.case.padEnd(16)} c=${String(r.concurrency).padEnd(4)} ${r.rps.toFixed(0).padStart(6)} req/s${ratio}  p50 ${r.latency.p50} p90 ${r.latency.p90} p99 ${r.latency.p99} max ${r.latency.max} ms  errors ${r.errors}  rss ${r.peakRssMiB ?? '–'} MiB  cpu ${r.cpu?.serviceMsPerRequest ?? '–'} ms/req (sys ${r.cpu?.serviceSystemMsPerRequest ?? '–'}), host ${r.cpu?.hostBusyPct ?? '–'}%${r.cpu?.cores ? ` ${JSON.stringify(r.cpu.cores)}` : ''}  consistent ${r.consistent}`,
  );
}

/**
 * Other work on a shared machine skews every figure: wait (bounded) until the host is mostly idle
 * and record how busy it was, so the report can say so.
 */
async function waitForQuietHost(maxSeconds: number): Promise<{ busyPct: number; waitedSeconds: number }> {
  const started = Date.now();
  while (true) {
    const a = readHostCpu();
    await sleep(1_000);
    const b = readHostCpu();
    const busyPct = Math.round((100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total));
    const waited = Math.round((Date.now() - started) / 1000);
    if (busyPct < 25 || waited >= maxSeconds) return { busyPct, waitedSeconds: waited };
  }
}

/** The commit a checkout of this repository is at (BENCH_SERVICE_DIR), or null. */
function gitHead(dir: string): string | null {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: dir, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function describeMachine() {
  const sh = (cmd: string) => {
    try {
      return execSync(cmd, { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    nproc: sh('nproc'),
    free: sh('free -h'),
    postgres: sh(
      `psql "${process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'}" -Atc "show server_version"`,
    ),
    redis:
      sh(`redis-cli -u ${SHARED_REDIS_URL} info server | grep redis_version`)?.replace('redis_version:', '') ?? null,
  };
}

/** Resident memory of all the service's processes together, KiB. */
const rssKiB = (t: Target) => t.pids.map(readMemoryKiB).reduce((sum, m) => sum + (m?.rss ?? 0), 0);
function cpuTimes(t: Target): { user: number; system: number } | null {
  const all = t.pids.map(readCpuTimes);
  if (all.some((x) => x === null)) return null;
  return all.reduce<{ user: number; system: number }>(
    (a, x) => ({ user: a.user + (x?.user ?? 0), system: a.system + (x?.system ?? 0) }),
    { user: 0, system: 0 },
  );
}

type Cannon = {
  res: CannonResult;
  peakRssMiB: number | null;
  serviceCpu: { user: number; system: number } | null;
  hostBusyPct: number;
  cpuShare: Record<string, number>;
};

/**
 * Where the host's CPU went during a run, in cores (1.0 = one core busy all the time): the
 * service, PostgreSQL, Redis, this benchmark process (autocannon) and anything else running.
 */
function cpuShare(
  before: Map<number, { comm: string; ms: number }>,
  after: Map<number, { comm: string; ms: number }>,
  servicePids: number[],
  seconds: number,
): Record<string, number> {
  const share: Record<string, number> = { service: 0, postgres: 0, redis: 0, bench: 0, other: 0 };
  for (const [pid, a] of after) {
    const d = a.ms - (before.get(pid)?.ms ?? 0);
    if (d <= 0) continue;
    const k = servicePids.includes(pid)
      ? 'service'
      : pid === process.pid
        ? 'bench'
        : a.comm === 'postgres'
          ? 'postgres'
          : a.comm.startsWith('redis-server')
            ? 'redis'
            : 'other';
    share[k] = (share[k] ?? 0) + d;
  }
  for (const k of Object.keys(share)) share[k] = Math.round((share[k] ?? 0) / seconds / 10) / 100;
  return share;
}

/**
 * Runs a raw-`pg` baseline (no service involved) and measures how busy the host was and how its
 * cores were shared while the load ran (`onLoadEnd` marks the end of the load, before checks).
 */
async function measureBaseline<B>(
  svc: Target,
  run: (onLoadEnd: () => void) => Promise<B>,
): Promise<{ b: B; cpu: NonNullable<Run['cpu']> }> {
  const host0 = readHostCpu();
  const procs0 = readAllProcessCpu();
  const t0 = performance.now();
  let cores: Record<string, number> = {};
  const b = await run(() => {
    cores = cpuShare(procs0, readAllProcessCpu(), svc.pids, (performance.now() - t0) / 1000);
  });
  const host1 = readHostCpu();
  const hostBusyPct = Math.round((100 * (host1.busy - host0.busy)) / Math.max(1, host1.total - host0.total));
  return { b, cpu: { serviceMsPerRequest: null, hostBusyPct, cores } };
}

/**
 * Runs autocannon while sampling the service's resident memory every 100 ms; also measures the
 * service's CPU time and how busy the whole host was (all cores) during the run.
 */
async function cannon(
  svc: Target,
  connections: number,
  seconds: number,
  request: NonNullable<Parameters<typeof autocannon>[0]['requests']>[number],
): Promise<Cannon> {
  let peak = 0;
  const sample = () => {
    const rss = rssKiB(svc);
    if (rss > peak) peak = rss;
  };
  sample();
  const timer = setInterval(sample, 100);
  const cpu0 = cpuTimes(svc);
  const host0 = readHostCpu();
  const procs0 = readAllProcessCpu();
  const t0 = performance.now();
  try {
    const res = await autocannon({ url: svc.url, connections, duration: seconds, timeout: 30, requests: [request] });
    sample();
    const cpu1 = cpuTimes(svc);
    const host1 = readHostCpu();
    return {
      res,
      peakRssMiB: peak ? Math.round(peak / 1024) : null,
      serviceCpu: cpu0 && cpu1 ? { user: cpu1.user - cpu0.user, system: cpu1.system - cpu0.system } : null,
      hostBusyPct: Math.round((100 * (host1.busy - host0.busy)) / Math.max(1, host1.total - host0.total)),
      cpuShare: cpuShare(procs0, readAllProcessCpu(), svc.pids, (performance.now() - t0) / 1000),
    };
  } finally {
    clearInterval(timer);
  }
}

const perRequest = (ms: number | null, n: number) => (ms === null || !n ? null : Math.round((100 * ms) / n) / 100);

function rowOf(name: string, c: number, k: Cannon): Run {
  const { res } = k;
  return {
    case: name,
    concurrency: c,
    rps: res['2xx'] / res.duration,
    ratio: null,
    latency: { p50: res.latency.p50, p90: res.latency.p90, p99: res.latency.p99, max: res.latency.max },
    errors: res.non2xx + res.errors + res.timeouts,
    peakRssMiB: k.peakRssMiB,
    consistent: null,
    cpu: {
      serviceMsPerRequest: perRequest(k.serviceCpu ? k.serviceCpu.user + k.serviceCpu.system : null, res['2xx']),
      serviceSystemMsPerRequest: perRequest(k.serviceCpu?.system ?? null, res['2xx']),
      hostBusyPct: k.hostBusyPct,
      cores: k.cpuShare,
    },
  };
}

/** Remembers the first few unexpected responses, for the report. */
function sampler() {
  const samples: string[] = [];
  return {
    samples,
    add: (status: number, body: string) => {
      if (samples.length < 3) samples.push(`${status} ${body.slice(0, 300)}`);
    },
  };
}

/**
 * Which requests of a run got which answer. autocannon stops at the deadline with requests in
 * flight: the service may still commit those, so a row is only unexpected when its request was
 * answered with a non-2xx or never built at all.
 */
function ledger() {
  let next = 0;
  const ok = new Set<number>();
  const failed = new Set<number>();
  return {
    ok,
    failed,
    take: () => next++,
    get built() {
      return next;
    },
    /** `ids` are the request numbers found in the database for this run. */
    compare(ids: number[]) {
      const found = new Set(ids);
      const missing = [...ok].filter((i) => !found.has(i));
      const unexpected = ids.filter((i) => failed.has(i) || i >= next || !Number.isInteger(i));
      const inFlightCommitted = ids.filter((i) => !ok.has(i) && !failed.has(i)).length;
      return {
        answered2xx: ok.size,
        rows: ids.length,
        missing: missing.length,
        unexpected: unexpected.length,
        duplicates: ids.length - found.size,
        inFlightCommitted,
      };
    },
  };
}
type Ledger = ReturnType<typeof ledger>;

async function saleCase(
  svc: Target,
  db: TempDatabase,
  f: LoadFixture,
  c: number,
  seconds: number,
  prefix: string,
  measured: boolean,
): Promise<Run> {
  const l = ledger();
  const bad = sampler();
  const body = (i: number) =>
    JSON.stringify({
      transaction_id: `${prefix}${i}`,
      amount_cents: amountOf(i),
      customer_key: f.customerKey(i % f.customers),
      currency: 'USD',
    });
  const k = await cannon(svc, c, seconds, {
    method: 'POST',
    path: '/api/v1/track/sale',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${f.liveKey}` },
    setupRequest(req, ctx) {
      const i = l.take();
      ctx.i = i;
      return { ...req, body: body(i) };
    },
    onResponse(status, text, ctx) {
      if (status === 200) l.ok.add(ctx.i as number);
      else {
        l.failed.add(ctx.i as number);
        bad.add(status, text);
      }
    },
  });
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
async function checkSales(db: TempDatabase, f: LoadFixture, prefix: string, l: Ledger) {
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

async function refundCase(
  svc: Target,
  db: TempDatabase,
  f: LoadFixture,
  c: number,
  seconds: number,
  prefix: string,
  targets: string[],
  offset: number,
): Promise<Run> {
  const l = ledger();
  const deductions = new Map<number, number>();
  let skipped = 0;
  const bad = sampler();
  const cpuStart = cpuTimes(svc);
  const k = await cannon(svc, c, seconds, {
    method: 'POST',
    path: '/api/v1/track/refund',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${f.liveKey}` },
    setupRequest(req, ctx) {
      const i = l.take();
      ctx.i = i;
      return {
        ...req,
        body: JSON.stringify({
          transaction_id: targets[(offset + i) % targets.length],
          refund_amount_cents: REFUND_CENTS,
          refund_id: `${prefix}${i}`,
          reason: 'refund',
        }),
      };
    },
    onResponse(status, text, ctx) {
      const i = ctx.i as number;
      if (status !== 200) {
        l.failed.add(i);
        bad.add(status, text);
        return;
      }
      const b = JSON.parse(text);
      if (b.status === 'refunded' || b.status === 'reversed') {
        l.ok.add(i);
        deductions.set(i, b.deductionAmount);
      } else {
        skipped++;
        l.failed.add(i);
      }
    },
  });
  await waitForNotificationsDelivered(db, 60_000);
  // The refunds' notifications may still be delivering when the load stops: service CPU per
  // applied refund up to the last delivery, so moving delivery between jobs cannot hide its cost.
  const cpuEnd = cpuTimes(svc);
  const withDeliveryMsPerRefund =
    cpuStart && cpuEnd && l.ok.size
      ? Math.round((100 * (cpuEnd.user + cpuEnd.system - cpuStart.user - cpuStart.system)) / l.ok.size) / 100
      : null;
  const { rows: mineRows } = await db.pool.query<{ refund_id: string; deduction_cents: string }>(
    `select r.refund_id, r.deduction_cents from refund r join sale s on s.id = r.sale_id where s.program_id = $1 and r.refund_id like $2`,
    [f.programId, `${prefix}%`],
  );
  const cmp = l.compare(mineRows.map((r) => Number(r.refund_id.slice(prefix.length))));
  // The deduction each 2xx reported is the one stored.
  const wrongDeduction = mineRows.filter((r) => {
    const i = Number(r.refund_id.slice(prefix.length));
    return deductions.has(i) && deductions.get(i) !== Number(r.deduction_cents);
  }).length;
  const inv = await refundInvariants(db, f);
  const ok = cmp.missing === 0 && cmp.unexpected === 0 && cmp.duplicates === 0 && wrongDeduction === 0 && inv.ok;
  return {
    ...rowOf('refund', c, k),
    consistent: ok,
    extra: {
      check: { ok, ...cmp, skipped, wrongDeduction, refundedSales: inv },
      serviceCpuMsPerRefundWithDelivery: withDeliveryMsPerRefund,
      sent: l.built,
      statusCodes: k.res.statusCodeStats,
      unexpected: bad.samples,
    },
  };
}

/**
 * Credits every uncredited commission of the program, as approval does (status `approved` unless
 * partly refunded, the remaining amount added to the partner balance with its ledger entry), in
 * one statement. Returns how many were credited.
 */
async function creditCommissions(db: TempDatabase, f: LoadFixture): Promise<number> {
  await db.pool.query(
    `with c as (
       update commission set credited_at = now(), status = case when status = 'pending' then 'approved' else status end
        where program_id = $1 and credited_at is null and status <> 'reversed'
        returning id, partner_id, currency, amount_cents - reversed_cents as remaining),
     e as (
       insert into balance_entry (partner_id, currency, delta_cents, kind, commission_id, created_at)
       select partner_id, currency, remaining, 'commission_credit', id, now() from c where remaining > 0
       returning partner_id, currency, delta_cents)
     insert into partner_balance (partner_id, currency, balance_cents)
     select partner_id, currency, sum(delta_cents) from e group by partner_id, currency
     on conflict (partner_id, currency) do update set balance_cents = partner_balance.balance_cents + excluded.balance_cents
     returning 1`,
    [f.programId],
  );
  const {
    rows: [r],
  } = await db.pool.query(
    `select count(*)::int as n from commission where program_id = $1 and credited_at is not null`,
    [f.programId],
  );
  return r.n;
}

/** The raw-pg refund run: its rows, no duplicate refund id, and the program's refund invariants. */
async function checkRefunds(db: TempDatabase, f: LoadFixture, prefix: string) {
  const {
    rows: [mine],
  } = await db.pool.query(
    `select count(*)::int as rows, count(distinct (r.sale_id, r.refund_id))::int as distinct_rows
       from refund r join sale s on s.id = r.sale_id where s.program_id = $1 and r.refund_id like $2`,
    [f.programId, `${prefix}%`],
  );
  const inv = await refundInvariants(db, f);
  return { ok: mine.rows === mine.distinct_rows && inv.ok, rows: mine.rows as number, refundedSales: inv };
}

/**
 * Cumulative invariants on every refunded sale of the program (all runs so far): refunded total,
 * reversal and status from the refunds' sums (no drift, no lost update); every partner balance is
 * the sum of its ledger; every refund's balance deduction has its ledger entry, and equals its
 * commission deduction when the commission was credited (all are, before the refund runs).
 */
async function refundInvariants(db: TempDatabase, f: LoadFixture) {
  const {
    rows: [inv],
  } = await db.pool.query(
    `select count(*)::int as sales,
            count(*) filter (where s.refunded_cents <> rs.applied)::int as bad_refunded_total,
            count(*) filter (where c.reversed_cents <> rs.deducted)::int as bad_deduction_sum,
            count(*) filter (where c.reversed_cents <> case when s.refunded_cents >= s.amount_cents then c.amount_cents
                               else (2 * c.amount_cents * s.refunded_cents + s.amount_cents) / (2 * s.amount_cents) end)::int as bad_reversal,
            count(*) filter (where c.status <> case when s.refunded_cents >= s.amount_cents then 'reversed' else 'refunded' end)::int as bad_status
       from sale s join commission c on c.sale_id = s.id
       join (select sale_id, sum(applied_cents) as applied, sum(deduction_cents) as deducted from refund group by sale_id) rs on rs.sale_id = s.id
      where s.program_id = $1`,
    [f.programId],
  );
  const {
    rows: [money],
  } = await db.pool.query(
    `select
       (select count(*)::int from partner_balance pb
          left join (select partner_id, currency, sum(delta_cents) as total from balance_entry group by partner_id, currency) e
            using (partner_id, currency)
         where pb.balance_cents <> coalesce(e.total, 0)) as bad_balance,
       (select count(*)::int from refund r
          join sale s on s.id = r.sale_id
          join commission c on c.id = r.commission_id
          left join (select refund_id, -sum(delta_cents) as deducted from balance_entry where kind = 'refund_deduction' group by refund_id) e
            on e.refund_id = r.id
         where s.program_id = $1
           and (r.balance_deduction_cents <> coalesce(e.deducted, 0)
                or (c.credited_at is not null and r.balance_deduction_cents <> r.deduction_cents))) as bad_balance_deduction`,
    [f.programId],
  );
  const ok =
    inv.bad_refunded_total === 0 &&
    inv.bad_deduction_sum === 0 &&
    inv.bad_reversal === 0 &&
    inv.bad_status === 0 &&
    money.bad_balance === 0 &&
    money.bad_balance_deduction === 0;
  return { ok, ...inv, ...money };
}

/** Refunds enqueue partner notifications; let them drain so they do not load the next run. */
async function waitForNotificationsDelivered(db: TempDatabase, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const {
      rows: [r],
    } = await db.pool.query(`select count(*)::int as n from notification where delivered_at is null`);
    if (r.n === 0) return;
    await sleep(250);
  }
}

/**
 * Signed Stripe checkouts: the acknowledgement rate (HTTP), then the time until every accepted
 * event is processed into a sale (drain). Returns the two rows.
 */
async function webhookCase(
  svc: Target,
  db: TempDatabase,
  f: LoadFixture,
  c: number,
  seconds: number,
  prefix: string,
): Promise<Run[]> {
  const l = ledger();
  const bad = sampler();
  const t0 = performance.now();
  const cpu0 = cpuTimes(svc);
  const k = await cannon(svc, c, seconds, {
    method: 'POST',
    path: `/api/v1/webhooks/stripe/${f.programId}`,
    setupRequest(req, ctx) {
      const i = l.take();
      ctx.i = i;
      const d = signedStripeCheckout(f, {
        eventId: `evt_${prefix}${i}`,
        paymentIntent: `pi_${prefix}${i}`,
        amountCents: amountOf(i),
        customerKey: f.customerKey(i % f.customers),
      });
      return { ...req, headers: d.headers, body: d.body };
    },
    onResponse(status, text, ctx) {
      const i = ctx.i as number;
      if (status === 200 && JSON.parse(text).duplicate === false) l.ok.add(i);
      else {
        l.failed.add(i);
        bad.add(status, text);
      }
    },
  });
  const tAck = performance.now();
  if (ACK_ONLY) {
    // Nothing processes them: the inbox must hold exactly one (pending) row per accepted event.
    const { rows } = await db.pool.query<{ dedupe_key: string }>(
      `select dedupe_key from webhook_event where program_id = $1 and dedupe_key like $2`,
      [f.programId, `evt_${prefix}%`],
    );
    const inbox = l.compare(rows.map((e) => Number(e.dedupe_key.slice(`evt_${prefix}`.length))));
    const ok = inbox.missing === 0 && inbox.unexpected === 0 && inbox.duplicates === 0;
    return [
      {
        ...rowOf('webhook ack', c, k),
        consistent: ok,
        note: 'alone: no worker, drain not measured',
        extra: { check: { ok, inbox }, sent: l.built, statusCodes: k.res.statusCodeStats, unexpected: bad.samples },
      },
    ];
  }
  let peak = k.peakRssMiB ?? 0;
  const deadline = Date.now() + 180_000;
  let pending = -1;
  while (Date.now() < deadline) {
    const {
      rows: [r],
    } = await db.pool.query(`select count(*)::int as n from webhook_event where status = 'pending'`);
    peak = Math.max(peak, Math.round(rssKiB(svc) / 1024));
    pending = r.n;
    if (pending === 0) break;
    await sleep(100);
  }
  const tDone = performance.now();
  const cpu1 = cpuTimes(svc);
  const drainSeconds = (tDone - t0) / 1000;
  const { rows: events } = await db.pool.query<{ dedupe_key: string; status: string }>(
    `select dedupe_key, status from webhook_event where program_id = $1 and dedupe_key like $2`,
    [f.programId, `evt_${prefix}%`],
  );
  const inbox = l.compare(events.map((e) => Number(e.dedupe_key.slice(`evt_${prefix}`.length))));
  const notProcessed = events.filter((e) => e.status !== 'processed').length;
  const sales = await checkSales(db, f, `pi_${prefix}`, l);
  const ok =
    inbox.missing === 0 && inbox.unexpected === 0 && notProcessed === 0 && sales.ok && sales.rows === events.length;
  const check = { ok, inbox, notProcessed, sales };
  const ack = {
    ...rowOf('webhook ack', c, k),
    consistent: ok,
    extra: { check, sent: l.built, statusCodes: k.res.statusCodeStats, unexpected: bad.samples },
  };
  const drain: Run = {
    case: 'webhook drained',
    concurrency: c,
    rps: events.length / drainSeconds,
    ratio: null,
    latency: { p50: NaN, p90: NaN, p99: NaN, max: Math.round(tDone - t0) },
    errors: pending === 0 ? 0 : pending,
    peakRssMiB: peak || null,
    consistent: ok,
    note: 'max = ms until all processed; CPU = acknowledging and processing, per event',
    // Service CPU from the first request until the inbox is drained, per event.
    cpu:
      cpu0 && cpu1
        ? {
            serviceMsPerRequest: perRequest(cpu1.user + cpu1.system - cpu0.user - cpu0.system, events.length),
            serviceSystemMsPerRequest: perRequest(cpu1.system - cpu0.system, events.length),
            hostBusyPct: NaN,
            cores: {},
          }
        : undefined,
    extra: {
      processed: events.length - notProcessed,
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      lagAfterLastAckSeconds: Math.round((tDone - tAck) / 10) / 100,
    },
  };
  return [ack, drain];
}

async function clickCase(
  svc: Target,
  db: TempDatabase,
  f: LoadFixture,
  c: number,
  seconds: number,
  prefix: string,
  measured: boolean,
): Promise<Run> {
  const l = ledger();
  const bad = sampler();
  const k = await cannon(svc, c, seconds, {
    method: 'POST',
    path: '/api/v1/track/click',
    headers: { 'content-type': 'application/json' },
    setupRequest(req, ctx) {
      const i = l.take();
      ctx.i = i;
      return {
        ...req,
        body: JSON.stringify({
          affiliate_url: `https://shop.example/pricing?aff=${f.partnerCodes[i % f.partnerCodes.length]}&r=${prefix}${i}`,
          page_url: 'https://shop.example/pricing',
        }),
      };
    },
    onResponse(status, text, ctx) {
      if (status === 200) l.ok.add(ctx.i as number);
      else {
        l.failed.add(ctx.i as number);
        bad.add(status, text);
      }
    },
  });
  const row = rowOf('click', c, k);
  if (!measured) return row;
  const { rows } = await db.pool.query<{ affiliate_url: string }>(
    `select affiliate_url from click where program_id = $1 and affiliate_url like $2`,
    [f.programId, `%&r=${prefix}%`],
  );
  const cmp = l.compare(rows.map((r) => Number(r.affiliate_url.split(`&r=${prefix}`)[1])));
  const consistent = cmp.missing === 0 && cmp.unexpected === 0 && cmp.duplicates === 0;
  return {
    ...row,
    consistent,
    extra: {
      check: { ok: consistent, ...cmp },
      sent: l.built,
      statusCodes: k.res.statusCodeStats,
      unexpected: bad.samples,
    },
  };
}

const hardStop = setTimeout(() => {
  console.error('bench exceeded 20 minutes; aborting');
  process.exit(2);
}, 20 * 60_000);
hardStop.unref();
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
