/**
 * The `writes` case of the data-volume bench: the load bench's write cases (bench/run.ts: the raw-pg
 * baselines, sale, refund, webhook, click) run against a seed's database, their own program seeded
 * beside the year of data, so each event's cost on the large seed stands beside the small seed's.
 * BENCH_DATA_WRITE_CASES (baseline,sale,refund,webhook,click), BENCH_DATA_WRITE_CONCURRENCY (8) and
 * BENCH_DURATION are passed on.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from '../test/helpers/service-process.ts';
import type { Run } from './config.ts';

export type WriteRuns = { seed: string; file: string; runs: Run[] };

/** One load-bench run on `database` (kept), in a child process; its rows as it recorded them. */
export async function runWrites(seed: string, database: string): Promise<WriteRuns> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_DATABASE: database,
    BENCH_CASES: process.env.BENCH_DATA_WRITE_CASES ?? 'baseline,sale,refund,webhook,click',
    BENCH_CONCURRENCY: process.env.BENCH_DATA_WRITE_CONCURRENCY ?? '8',
    BENCH_LABEL: `data-${seed}`,
    BENCH_QUIET_WAIT: '0',
  };
  delete env.BENCH_DATA;
  console.log(`${seed}: write cases on ${database} (${env.BENCH_CASES} @${env.BENCH_CONCURRENCY})`);
  const child = spawn(process.execPath, [`${REPO_ROOT}bench/run.ts`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    process.stdout.write(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const file = /wrote (bench\/results\/\S+\.json)/.exec(out)?.[1];
  if (!file) throw new Error(`write cases on ${database} exited ${code} without writing results`);
  const { runs } = JSON.parse(readFileSync(`${REPO_ROOT}${file}`, 'utf8')) as { runs: Run[] };
  if (code !== 0) console.error(`${seed}: write cases exited ${code} (errors or a failed consistency check)`);
  return { seed, file, runs };
}

const fmt = (n: number | null | undefined, digits = 2) => (n == null ? '–' : n.toFixed(digits));
const times = (large: number | null | undefined, small: number | null | undefined) =>
  large != null && small ? `${(large / small).toFixed(2)}×` : '–';

/** Each write case on both seeds: throughput, × its raw-pg baseline, and service CPU per event. */
export function writesTable(small: WriteRuns, large: WriteRuns): string {
  const lines = [
    '| case | conns | small req/s (× raw pg) | large req/s (× raw pg) | service CPU ms/event small → large | large ÷ small CPU |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const s of small.runs) {
    const l = large.runs.find((r) => r.case === s.case && r.concurrency === s.concurrency);
    const cpuS = s.cpu?.serviceMsPerRequest;
    const cpuL = l?.cpu?.serviceMsPerRequest;
    lines.push(
      `| ${s.case} | ${s.concurrency} | ${Math.round(s.rps)} (${fmt(s.ratio)}) | ${l ? Math.round(l.rps) : '–'} (${fmt(l?.ratio)}) | ${fmt(cpuS)} → ${fmt(cpuL)} | ${times(cpuL, cpuS)} |`,
    );
  }
  return lines.join('\n');
}
