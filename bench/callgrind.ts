/**
 * Instructions per request, counted by valgrind's callgrind (`BENCH_CALLGRIND=<dir>`): the service
 * runs under valgrind with instrumentation off until a measured run starts, so seeding and warm-up
 * cost little; each run zeroes the counters, switches instrumentation on, and dumps the count when
 * it ends. Unlike requests per second or CPU time, the count of the same code on the same inputs
 * hardly moves with what else the machine is doing, which is what a before/after comparison on a
 * shared host needs. Expect the service to run 20–50× slower: rates and latencies of such a run mean
 * nothing, only `instructions per request`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CALLGRIND_DIR = process.env.BENCH_CALLGRIND ? resolve(process.env.BENCH_CALLGRIND) : null;
const VGDB_PREFIX = CALLGRIND_DIR ? join(CALLGRIND_DIR, 'vgdb') : '';

/** The command the service runs under (none without BENCH_CALLGRIND). */
export function callgrindWrapper(): string[] | undefined {
  if (!CALLGRIND_DIR) return undefined;
  mkdirSync(CALLGRIND_DIR, { recursive: true });
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    // V8 writes and rewrites machine code in anonymous memory.
    '--smc-check=all-non-file',
    `--callgrind-out-file=${join(CALLGRIND_DIR, 'cg.%p')}`,
    `--vgdb-prefix=${VGDB_PREFIX}`,
  ];
}

/**
 * V8 without background threads under callgrind: garbage collection and optimising compilation
 * then happen on the main thread at points the allocations and calls decide, not when a helper
 * thread gets the CPU, so a fixed number of requests (BENCH_AMOUNT) counts nearly the same
 * instructions run after run, whatever else the host is doing.
 */
export const CALLGRIND_NODE_ARGS = CALLGRIND_DIR ? ['--single-threaded'] : [];

/** One callgrind_control command; it exits 0 also when the process did not answer, so its "OK" is checked. */
function control(pid: number, ...args: string[]): void {
  const out = execFileSync('callgrind_control', [`--vgdb-prefix=${VGDB_PREFIX}`, ...args, String(pid)], {
    encoding: 'utf8',
    timeout: 600_000,
    // valgrind names the control pipe after $LOGNAME/$USER and $HOST: the service's values.
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1' },
  });
  if (!out.includes('OK.')) throw new Error(`callgrind_control ${args.join(' ')} ${pid}: ${out}`);
}

/** Zeroes the counters of these processes and switches instrumentation on. */
export function startCounting(pids: readonly number[]): void {
  if (!CALLGRIND_DIR) return;
  for (const pid of pids) {
    control(pid, '-i', 'on');
    control(pid, '-z');
  }
}

/** Dumps and sums the instructions counted since `startCounting`, then switches instrumentation off. */
export function stopCounting(pids: readonly number[]): number | null {
  if (!CALLGRIND_DIR) return null;
  let total = 0;
  for (const pid of pids) {
    control(pid, '-d');
    control(pid, '-i', 'off');
    const dir = CALLGRIND_DIR;
    const newest = readdirSync(dir)
      .filter((f) => f.startsWith(`cg.${pid}.`))
      .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at)[0];
    const totals = newest && /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, newest.f), 'utf8'));
    if (!totals) throw new Error(`no callgrind dump of process ${pid} in ${dir}`);
    total += Number(totals[1]);
  }
  return total;
}
