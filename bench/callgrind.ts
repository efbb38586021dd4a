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
import { splitDump } from './callgrind-split.ts';

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
 * V8 without background threads and with a fixed garbage-collection schedule under callgrind:
 * collection and optimising compilation then happen on the main thread at points the allocations
 * and calls decide, not when a helper thread gets the CPU or by the heap's timers. Without them a
 * major collection falls inside a run or not by timing, and one is a tenth of a run's count.
 */
export const CALLGRIND_NODE_ARGS = CALLGRIND_DIR ? ['--single-threaded', '--predictable-gc-schedule'] : [];

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

let countingSince = 0;
/** What the service executes per second with no request: timers, polls, keep-alives (`measureIdle`). */
let idlePerSecond = 0;

/** Zeroes the counters of these processes and switches instrumentation on. */
export function startCounting(pids: readonly number[]): void {
  if (!CALLGRIND_DIR) return;
  for (const pid of pids) {
    control(pid, '-i', 'on');
    control(pid, '-z');
  }
  countingSince = performance.now();
}

/**
 * Counts the service at rest for `seconds`: its timers and polls run by the clock, not per request,
 * and under callgrind a run's wall time depends on what else the host does, so `stopCounting`
 * subtracts this rate × the run's seconds to leave the requests' own work.
 */
export async function measureIdle(pids: readonly number[], seconds: number): Promise<void> {
  if (!CALLGRIND_DIR) return;
  startCounting(pids);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const total = stopCounting(pids)!;
  idlePerSecond = total / ((performance.now() - countingSince) / 1000);
  console.log(`service at rest under callgrind: ${Math.round(idlePerSecond).toLocaleString('en')} instructions/s`);
}

/**
 * Dumps and sums the instructions counted since `startCounting`, less the rest rate × the seconds
 * counted (`measureIdle`), then switches instrumentation off.
 */
export function stopCounting(pids: readonly number[]): number | null {
  if (!CALLGRIND_DIR) return null;
  const seconds = (performance.now() - countingSince) / 1000;
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
    const split = splitDump(join(dir, newest.f));
    const m = (n: number) => `${(n / 1e6).toFixed(0)} M`;
    console.log(
      `process ${pid}: garbage collection ${m(split.gc)}, compilation ${m(split.compile)}, the rest ${m(split.rest)} (callgrind-split.ts)`,
    );
  }
  const atRest = Math.round(idlePerSecond * seconds);
  if (atRest)
    console.log(
      `counted ${total.toLocaleString('en')} instructions in ${seconds.toFixed(1)} s, less ${atRest.toLocaleString('en')} at rest`,
    );
  return total - atRest;
}
