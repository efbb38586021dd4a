/** The host a benchmark runs on: whether it is quiet, what it is, which commit is measured. */
import { execSync } from 'node:child_process';
import os from 'node:os';
import { SHARED_REDIS_URL } from '../test/helpers/throwaway-redis.ts';
import { readHostCpu } from '../test/helpers/proc-stats.ts';
import { sleep } from './config.ts';

/**
 * Other work on a shared machine skews every figure: wait (bounded) until the host is mostly idle
 * and record how busy it was, so the report can say so.
 */
export async function waitForQuietHost(maxSeconds: number): Promise<{ busyPct: number; waitedSeconds: number }> {
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
export function gitHead(dir: string): string | null {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: dir, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

export function describeMachine() {
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
