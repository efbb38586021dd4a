/** The bench's settings (from the environment, see run.ts) and the types its modules share. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../test/helpers/service-process.ts';
import type { TempDatabase } from '../test/helpers/temp-database.ts';
import type { LoadFixture } from '../test/helpers/load-fixture.ts';
import type { Row } from './report.ts';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
/**
 * BENCH_AMOUNT: each load run sends this many requests instead of running BENCH_DURATION seconds
 * (an instruction count compares the same work on both sides; the raw-pg baseline keeps the duration).
 */
export const AMOUNT = process.env.BENCH_AMOUNT ? Number(process.env.BENCH_AMOUNT) : null;
export const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,8,32,128').split(',').map(Number);
export const TOPOLOGY = (['split', 'http-only'] as const).find((t) => t === process.env.BENCH_TOPOLOGY) ?? 'serve';
/** No worker runs: webhooks are stored and acknowledged, never processed. */
export const ACK_ONLY = TOPOLOGY === 'http-only';
export const SERVICE_DIR = process.env.BENCH_SERVICE_DIR ? `${resolve(process.env.BENCH_SERVICE_DIR)}/` : undefined;
export const DEFAULT_CASES = 'baseline,sale,sale-nometrics,refund,webhook,click,preview,export';
export const CASES = (process.env.BENCH_CASES ?? (ACK_ONLY ? 'webhook' : DEFAULT_CASES)).split(',');
export const METRICS_OFF = process.env.BENCH_METRICS === 'off';
/**
 * `--data large` (or BENCH_DATA=large): the data-volume bench (data-volume.ts) instead of the load
 * bench; so does BENCH_CASES=ledger-verify (a case of the large seed).
 */
export const DATA = (() => {
  if (CASES.length === 1 && CASES[0] === 'ledger-verify' && !process.env.BENCH_DATA) return 'large';
  const i = process.argv.indexOf('--data');
  return i >= 0
    ? process.argv[i + 1]
    : (process.argv.find((a) => a.startsWith('--data='))?.slice(7) ?? process.env.BENCH_DATA);
})();
/** The V8 options of `npm start` (the Dockerfile's NODE_OPTIONS are the same): what is deployed is measured. */
export const SERVICE_NODE_OPTIONS = (
  JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((a) => a.startsWith('--'))
  .join(' ');
export const RATE_BPS = 1_000;
export const FEE_BPS = 200;
export const REFUND_CENTS = 50;
export const ADMIN_TOKEN = `bench-admin-${randomBytes(16).toString('hex')}`;
export const PASS_THROUGH = [
  'WORKER_CONCURRENCY',
  'API_CALLS_IN_PLACE',
  'DB_POOL_MAX',
  'DB_PREPARED_STATEMENTS',
  'DB_QUERY_TIMEOUT_MS',
  'JOB_WAIT_TIMEOUT_MS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_ATTEMPTS',
  'SWEEP_INTERVAL_MS',
  'LOG_LEVEL',
];

/** Sale amounts vary (10.00 to 105.00) so commission sums catch a wrong row, not only a wrong count. */
export const amountOf = (i: number) => 1_000 + (i % 96) * 100;

export type Extra = Record<string, unknown>;
/** What the load is aimed at: the HTTP base URL and every process of the service. */
export type Target = { url: string; pids: number[] };
export type Run = Row & { extra?: Extra };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every case runs against, and where its rows go. */
export type BenchContext = {
  svc: Target;
  /** The same service with metrics collection off (the `sale-nometrics` case), or null. */
  noMetrics: Target | null;
  db: TempDatabase;
  f: LoadFixture;
  runs: Run[];
  /** Raw-pg rates per concurrency: the denominators of the ratios (webhooks and clicks use the sale's). */
  baseline: { sale: Map<number, number>; refund: Map<number, number> };
  metricsCost: Array<Record<string, number | null>>;
  /** The bearer token of the service's /metrics. */
  metricsToken: string;
};

/** One load run of a case: against `svc`, `c` connections for `seconds`, its rows named by `prefix`. */
export type CaseRun = {
  svc: Target;
  db: TempDatabase;
  f: LoadFixture;
  c: number;
  seconds: number;
  prefix: string;
};

/** A run of `ctx`'s service (or `svc`) at `c` connections for the configured duration. */
export const runOf = (ctx: BenchContext, c: number, prefix: string, svc: Target = ctx.svc): CaseRun => ({
  svc,
  db: ctx.db,
  f: ctx.f,
  c,
  seconds: DURATION_S,
  prefix,
});
