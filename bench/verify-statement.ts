/**
 * `npx node bench/verify-statement.ts [lines]`: how long the client's `tracker verify-statement`
 * takes over a large signed statement (default 1,000,000 lines; BENCH_VERIFY_RUNS runs, default 3).
 * The statement is made with the service's own hashing, export columns and CSV encoder
 * (test/helpers/statement-file.ts), signed with a fresh key, written to a temporary file; each run is
 * the CLI as a user starts it (a new Node process), timed from spawn to exit, with the CPU time the
 * process used (user + system, from /usr/bin/time: on a shared host the wall time mostly measures
 * the other processes), after waiting up to BENCH_QUIET_SECONDS (default 120) for the host to be
 * quiet. Prints the figures and writes
 * `bench/results/<date>-verify-statement.json` and `.md`.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/service-process.ts';
import { makeStatementKey, statementFileChunks } from '../test/helpers/statement-file.ts';
import { describeMachine, gitHead, waitForQuietHost } from './machine.ts';

const LINES = Number(process.argv[2] ?? process.env.BENCH_VERIFY_LINES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_VERIFY_RUNS ?? 3);
const QUIET_SECONDS = Number(process.env.BENCH_QUIET_SECONDS ?? 120);
const TIME = '/usr/bin/time';

const dir = mkdtempSync(join(tmpdir(), 'verify-bench-'));
const file = join(dir, 'statement.csv');
try {
  const key = makeStatementKey();
  let started = performance.now();
  const out = createWriteStream(file);
  for (const chunk of statementFileChunks({ lines: LINES, seed: 1, key, pageSize: 2000 })) {
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  const generateSeconds = (performance.now() - started) / 1000;
  const bytes = statSync(file).size;
  console.log(`statement: ${LINES} lines, ${(bytes / 1e6).toFixed(1)} MB, made in ${generateSeconds.toFixed(1)} s`);

  type Run = { seconds: number; cpuSeconds: number | null; exitCode: number | null; busyPctBefore: number };
  const runs: Array<Run & { waitedSeconds: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const quiet = await waitForQuietHost(QUIET_SECONDS);
    started = performance.now();
    const cli = [
      process.execPath,
      join(REPO_ROOT, 'tracker/src/cli.ts'),
      ...['verify-statement', file, '--key', `${key.key_id}:${key.public_key}`],
    ];
    const timed = existsSync(TIME);
    const child = timed
      ? spawnSync(TIME, ['-f', 'cpu %U %S', ...cli], { encoding: 'utf8' })
      : spawnSync(cli[0]!, cli.slice(1), { encoding: 'utf8' });
    const seconds = (performance.now() - started) / 1000;
    const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(child.stderr);
    const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : null;
    runs.push({
      seconds,
      cpuSeconds,
      exitCode: child.status,
      busyPctBefore: quiet.busyPct,
      waitedSeconds: quiet.waitedSeconds,
    });
    console.log(
      `run ${i + 1}: ${seconds.toFixed(2)} s, CPU ${cpuSeconds?.toFixed(2) ?? '?'} s, exit ${child.status} ` +
        `(host ${quiet.busyPct}% busy before)\n  ${(child.stdout + child.stderr).trim().split('\n').join('\n  ')}`,
    );
  }
  const sorted = runs.map((r) => r.seconds).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const cpus = runs.map((r) => r.cpuSeconds ?? NaN).sort((a, b) => a - b);
  const medianCpu = cpus[Math.floor(cpus.length / 2)]!;
  const result = {
    at: new Date().toISOString(),
    commit: gitHead(REPO_ROOT),
    machine: describeMachine(),
    node: process.version,
    lines: LINES,
    bytes,
    generateSeconds,
    runs,
    medianSeconds: median,
    medianCpuSeconds: medianCpu,
    linesPerSecond: Math.round(LINES / median),
  };
  const stamp = result.at.slice(0, 19).replaceAll(':', '-');
  const results = join(REPO_ROOT, 'bench/results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, `${stamp}-verify-statement.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(
    join(results, `${stamp}-verify-statement.md`),
    [
      `# Statement verifier bench, ${result.at}`,
      '',
      `\`tracker verify-statement\` over a signed statement of ${LINES.toLocaleString('en')} lines ` +
        `(${(bytes / 1e6).toFixed(1)} MB), a new Node ${process.version} process per run, ` +
        `${result.machine.cpus} CPUs; commit ${result.commit ?? 'unknown'}.`,
      '',
      '| run | wall seconds | CPU seconds (user + system) | exit | host busy before |',
      '|---:|---:|---:|---:|---:|',
      ...runs.map(
        (r, i) =>
          `| ${i + 1} | ${r.seconds.toFixed(2)} | ${r.cpuSeconds?.toFixed(2) ?? '?'} | ${r.exitCode} | ${r.busyPctBefore}% |`,
      ),
      '',
      `Median ${median.toFixed(2)} s wall (${result.linesPerSecond.toLocaleString('en')} lines per second), ` +
        `${medianCpu.toFixed(2)} s of CPU.`,
      '',
    ].join('\n'),
  );
  console.log(`median ${median.toFixed(2)} s wall, ${medianCpu.toFixed(2)} s CPU; written to bench/results/${stamp}-*`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
