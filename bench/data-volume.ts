/**
 * `npm run bench -- --data large` (or BENCH_DATA=large): read paths over a year of one large
 * program. Two seeds in one run, each in its own database with its own `serve` process: `small`
 * (the same seed at BENCH_DATA_SMALL_SCALE, default 0.002: 20 partners, 20,000 clicks, 2,000 sales)
 * and `large` (BENCH_DATA_SCALE, default 1: large-seed.ts). Each read case runs against both; the
 * table puts them side by side with the large ÷ small ratios. Writes
 * `bench/results/<date>-data-large[-label].json` and `.md`.
 *
 * The large database is BENCH_DATA_DB (default `bench_large`), dropped at the end unless
 * BENCH_DATA_KEEP=1; a kept database seeded at the same scale is reused by the next run (the seed
 * is recorded in its comment), unless BENCH_DATA_FRESH=1. BENCH_DATA_CASES picks cases
 * (overview,records,portal,statement,csv,status,writes, and ledger-verify: cases/ledger-verify.ts,
 * also run alone by BENCH_CASES=ledger-verify); BENCH_READ_CALLS (30) calls per case.
 * `writes` runs the load bench's write cases on each seed's database once its reads are done
 * (writes-on-seed.ts) and tables each event's cost on the large seed beside the small one's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { REPO_ROOT, migrateDatabase, startService, type ServiceProcess } from '../test/helpers/service-process.ts';
import { BASE_DATABASE_URL, adminQuery } from '../test/helpers/temp-database.ts';
import { SHARED_REDIS_URL, deleteRedisPrefix } from '../test/helpers/throwaway-redis.ts';
import { adminCall } from '../test/helpers/load-fixture.ts';
import { ADMIN_TOKEN, SERVICE_NODE_OPTIONS } from './config.ts';
import { describeMachine, waitForQuietHost } from './machine.ts';
import { countsAt, seedLargeProgram, type SeedCounts } from './large-seed.ts';
import { comparisonTable, type ReadTarget, type ReadTiming } from './reads.ts';
import { runOverview } from './cases/overview.ts';
import { runRecords } from './cases/records.ts';
import { runPortal } from './cases/portal.ts';
import { runStatement } from './cases/statement.ts';
import { runCsv } from './cases/csv.ts';
import { runStatus } from './cases/status.ts';
import { runLedgerVerify } from './cases/ledger-verify.ts';
import { runWrites, writesTable, type WriteRuns } from './writes-on-seed.ts';

const CASES: Record<string, (t: ReadTarget) => Promise<ReadTiming[]>> = {
  overview: runOverview,
  records: runRecords,
  portal: runPortal,
  statement: runStatement,
  csv: runCsv,
  status: runStatus,
  'ledger-verify': runLedgerVerify,
};
// `BENCH_CASES=ledger-verify` alone: that case only (config.ts sends it here).
const SELECTED = (
  process.env.BENCH_DATA_CASES ??
  (process.env.BENCH_CASES === 'ledger-verify' ? 'ledger-verify' : [...Object.keys(CASES), 'writes'].join(','))
).split(',');
const WRITES = SELECTED.includes('writes');
const LARGE_SCALE = Number(process.env.BENCH_DATA_SCALE ?? 1);
const SMALL_SCALE = Number(process.env.BENCH_DATA_SMALL_SCALE ?? 0.002);
const LARGE_DB = process.env.BENCH_DATA_DB ?? 'bench_large';
const KEEP = process.env.BENCH_DATA_KEEP === '1';

type Seeded = { seed: string; scale: number; counts: SeedCounts; seedSeconds: number | null; reused: boolean };

const urlOf = (name: string) => {
  const u = new URL(BASE_DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

/** The program a kept database was seeded with at this scale, or null (then it is recreated). */
async function reusable(name: string, scale: number): Promise<{ programId: number } | null> {
  if (process.env.BENCH_DATA_FRESH === '1') return null;
  const { rows } = await adminQuery(
    `select shobj_description(oid, 'pg_database') as note from pg_database where datname = '${name}'`,
  );
  const note = rows[0]?.note ? (JSON.parse(rows[0].note) as { scale: number; programId: number }) : null;
  return note && note.scale === scale ? { programId: note.programId } : null;
}

/**
 * Waits until the service's sweeper rolled every day of the seed that can be rolled and recomputed
 * every dirty day (rollups.ts), as a service upgraded under a year of data would after its first
 * sweeps; prints how long that took.
 */
async function waitForRollups(pool: pg.Pool, seed: string): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const { rows } = await pool.query(
      `select coalesce(rolled_through > ((now() at time zone 'UTC') - interval '1 day 10 minutes')::date, false)
          and not exists (select 1 from rollup_dirty) as done from rollup_state`,
    );
    if (rows[0]?.done) break;
    if (performance.now() - t0 > 30 * 60_000) throw new Error('rollups did not catch up within 30 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`${seed}: rollups caught up in ${Math.round((performance.now() - t0) / 100) / 10}s`);
}

/** Seeds (or reuses) one database, runs the selected cases against a `serve` process on it. */
async function runSeed(
  seed: string,
  scale: number,
  dbName: string,
  rows: ReadTiming[],
  writes: WriteRuns[],
): Promise<Seeded> {
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error(`bad database name ${dbName}`);
  const url = urlOf(dbName);
  const kept = seed === 'large' ? await reusable(dbName, scale) : null;
  if (!kept) {
    await adminQuery(`drop database if exists ${dbName} with (force)`);
    await adminQuery(`create database ${dbName}`);
    await migrateDatabase(url);
  }
  const prefix = `benchdv${randomBytes(3).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  let svc: ServiceProcess | null = null;
  try {
    svc = await startService('serve', {
      DATABASE_URL: url,
      REDIS_URL: SHARED_REDIS_URL,
      ADMIN_TOKEN,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      DEMO_SEED: 'false',
      STATUS_LIMIT_PER_MINUTE: '100000000',
      // The rollup sweeper rolls a seeded year in a few sweeps (see waitForRollups).
      SWEEP_INTERVAL_MS: '1000',
      // A verification of the whole large program takes longer than a report's default limit.
      ...(SELECTED.includes('ledger-verify') ? { REPORT_TIMEOUT_MS: '3600000' } : {}),
      NODE_OPTIONS: [SERVICE_NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS].filter(Boolean).join(' '),
    });
    const counts = countsAt(scale);
    let programId = kept?.programId;
    let seedSeconds: number | null = null;
    if (programId === undefined) {
      const { program } = await adminCall(svc.url, ADMIN_TOKEN, 'POST', '/programs', {
        name: `Data volume ${seed}`,
        rate_limit_per_minute: 1_000_000,
        commission_rate_bps: 1_000,
        platform_fee_bps: 0,
        hold_period_days: 30,
        // The year of clicks stays whole (10 M rows: the worst case, a program that opts out of
        // click retention), and the sweeper deletes none while the seed binds customers to them.
        keep_raw_clicks: true,
      });
      programId = program.id as number;
      console.log(`${seed}: seeding scale ${scale} (${JSON.stringify(counts)})`);
      const t0 = performance.now();
      await seedLargeProgram(url, programId, counts);
      seedSeconds = Math.round((performance.now() - t0) / 100) / 10;
      console.log(`${seed}: seeded in ${seedSeconds}s`);
      if (seed === 'large' && KEEP)
        await adminQuery(`comment on database ${dbName} is '${JSON.stringify({ scale, programId })}'`);
    } else console.log(`${seed}: reusing ${dbName} (scale ${scale}, program ${programId})`);
    await waitForRollups(pool, seed);
    const live = await adminCall(svc.url, ADMIN_TOKEN, 'POST', `/programs/${programId}/keys`, { mode: 'live' });
    const top = await pool.query(
      'select partner_id from commission where program_id = $1 group by 1 order by count(*) desc limit 1',
      [programId],
    );
    const target: ReadTarget = {
      seed,
      url: svc.url,
      programId,
      liveKey: live.key,
      partnerId: top.rows[0].partner_id,
      pool,
    };
    for (const name of SELECTED.filter((n) => n !== 'writes')) {
      const run = CASES[name];
      if (!run) throw new Error(`unknown data case ${name}; one of ${Object.keys(CASES).join(', ')}`);
      rows.push(...(await run(target)));
    }
    if (WRITES) {
      // The write cases start their own service on this database: this one stops first.
      await svc.stop(20_000);
      svc = null;
      writes.push(await runWrites(seed, dbName));
    }
    return { seed, scale, counts, seedSeconds, reused: !!kept };
  } finally {
    await svc?.stop(20_000);
    await pool.end().catch(() => {});
    await deleteRedisPrefix(SHARED_REDIS_URL, prefix).catch(() => {});
    if (seed !== 'large' || !KEEP) await adminQuery(`drop database if exists ${dbName} with (force)`);
  }
}

export async function runDataVolume(): Promise<void> {
  const started = Date.now();
  const machine = describeMachine();
  const quiet = await waitForQuietHost(Number(process.env.BENCH_QUIET_WAIT ?? 60));
  console.log(`host CPU busy before start: ${quiet.busyPct}% (${quiet.waitedSeconds}s waited for < 25%)`);
  const rows: ReadTiming[] = [];
  const seeds: Seeded[] = [];
  const writes: WriteRuns[] = [];
  seeds.push(await runSeed('small', SMALL_SCALE, `benchdv_small_${randomBytes(3).toString('hex')}`, rows, writes));
  seeds.push(await runSeed('large', LARGE_SCALE, LARGE_DB, rows, writes));
  const [smallWrites, largeWrites] = writes;
  const table =
    comparisonTable(rows) +
    (smallWrites && largeWrites
      ? `\n\nWrite cases (bench/run.ts on each seed's database; ${smallWrites.file}, ${largeWrites.file}):\n\n${writesTable(smallWrites, largeWrites)}`
      : '');
  const label = process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : '';
  const at = `${new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '')}-data-large${label}`;
  const dir = `${REPO_ROOT}bench/results`;
  mkdirSync(dir, { recursive: true });
  const result = {
    date: new Date().toISOString(),
    machine,
    hostBusyBeforeStartPct: quiet.busyPct,
    node: process.version,
    seeds,
    writes: writes.map((w) => ({ seed: w.seed, file: w.file })),
    totalSeconds: Math.round((Date.now() - started) / 1000),
    rows,
  };
  writeFileSync(`${dir}/${at}.json`, `${JSON.stringify(result, null, 2)}\n`);
  const seedLines = seeds.map(
    (s) =>
      `- ${s.seed}: scale ${s.scale}, ${Object.entries(s.counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}; ${s.reused ? 'reused' : `seeded in ${s.seedSeconds}s`}`,
  );
  const md = `# Data-volume bench, ${result.date}\n\n${seedLines.join('\n')}\n\nSequential calls after a warm-up; ms.\n\n${table}\n`;
  writeFileSync(`${dir}/${at}.md`, md);
  console.log(
    `\n${seedLines.join('\n')}\n\n${table}\n\nwrote bench/results/${at}.json and .md (${result.totalSeconds}s)`,
  );
  if (rows.some((r) => r.errors > 0)) process.exitCode = 1;
}
