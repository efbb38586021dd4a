/**
 * `BENCH_CASES=embedded-memory npm run bench`: resident memory of embedded mode (PGlite in process,
 * in-process queue), started as `npm start` starts it: `node <npm start's V8 options> src/main.ts`
 * with no DATABASE_URL or REDIS_URL and a fresh DATA_DIR. The RSS of the service and of any child
 * it starts is read from /proc every 100 ms. Phases: the first start (migrations, demo seed) until
 * /healthz answers; at rest after it; the scripted dashboard walk (embedded-walk.ts); at rest after
 * the walk; a second start on the same DATA_DIR and rest after it. The dashboard bundle is built
 * first when it is stale (as the first `npm start` of a fresh clone would, in a child process), so
 * the figures are the service's own. Writes `bench/results/<date>-embedded-memory.json`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, freePort } from '../test/helpers/service-process.ts';
import { SERVICE_DIR, SERVICE_NODE_OPTIONS, sleep } from './config.ts';
import { describeMachine, gitHead } from './machine.ts';
import { walkDashboard, type WalkResult } from './embedded-walk.ts';

const SAMPLE_MS = 100;
/** How long the service is left alone before "at rest" is read, and how long that read lasts. */
const SETTLE_MS = Number(process.env.BENCH_REST_SETTLE_MS ?? 5_000);
const REST_MS = 2_000;
const KiB_PER_MiB = 1024;

/** Resident KiB of one process (VmRSS and its anonymous and file-backed parts), or null once gone. */
function status(pid: number): { rss: number; anon: number; file: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0);
    return { rss: get('VmRSS'), anon: get('RssAnon'), file: get('RssFile') + get('RssShmem') };
  } catch {
    return null;
  }
}

/** The process and its descendants (from /proc/<pid>/task/<tid>/children). */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`)) {
        const kids = readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(' ').map(Number));
      }
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

type Sample = { t: number; rss: number; anon: number; file: number; processes: number };

/** Samples one service's process tree every 100 ms into the phase currently set. */
class Sampler {
  samples = new Map<string, Sample[]>();
  phase = 'idle';
  private timer: NodeJS.Timeout;
  private pid: number;
  constructor(pid: number) {
    this.pid = pid;
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
  }
  sample(): void {
    const all = tree(this.pid)
      .map(status)
      .filter((s) => s !== null);
    if (!all.length) return;
    const sum = (k: 'rss' | 'anon' | 'file') => all.reduce((a, s) => a + s[k], 0);
    const s: Sample = { t: Date.now(), rss: sum('rss'), anon: sum('anon'), file: sum('file'), processes: all.length };
    (this.samples.get(this.phase) ?? this.samples.set(this.phase, []).get(this.phase)!).push(s);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

const mib = (kib: number) => Math.round(kib / KiB_PER_MiB);
const peak = (s: Sample[]) => mib(Math.max(...s.map((x) => x.rss)));
const median = (s: Sample[]) => mib([...s].sort((a, b) => a.rss - b.rss)[Math.floor(s.length / 2)]!.rss);

/** Starts the service as `npm start` does and samples it from its first instruction. */
async function startEmbedded(dataDir: string, phase: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVICE_NODE_OPTIONS.split(' '), 'src/main.ts'], {
    cwd: SERVICE_DIR ?? REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sampler = new Sampler(child.pid!);
  sampler.phase = phase;
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited before it was ready:\n${output}`);
    if (Date.now() - started > 300_000) throw new Error(`the service was not ready within 300 s:\n${output}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(50);
  }
  const readyMs = Date.now() - started;
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    sampler.stop();
  };
  return { url, sampler, readyMs, stop, output: () => output };
}

/** Leaves the service alone, then reads it at rest (the median of REST_MS of samples). */
async function rest(sampler: Sampler, phase: string): Promise<void> {
  sampler.phase = `${phase} (settling)`;
  await sleep(SETTLE_MS);
  sampler.phase = phase;
  await sleep(REST_MS);
}

export async function runEmbeddedMemory(): Promise<void> {
  const dir = SERVICE_DIR ?? REPO_ROOT;
  const build = await import(join(dir, 'dashboard/build.ts')).catch(() => null);
  if (build?.dashboardIsStale?.()) {
    console.log('building the dashboard bundle first (sources newer than dashboard/dist)');
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, ['dashboard/build.ts'], { cwd: dir, stdio: 'inherit' }).on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`dashboard build failed (${code})`)),
      ),
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
  const phases: Array<{ phase: string; samples: Sample[] }> = [];
  let walk: WalkResult | undefined;
  const timings: Record<string, number> = {};
  try {
    const first = await startEmbedded(dataDir, 'first start');
    timings.firstStartMs = first.readyMs;
    await rest(first.sampler, 'at rest after start');
    first.sampler.phase = 'walk';
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const t0 = Date.now();
    walk = await walkDashboard(first.url, token);
    timings.walkMs = Date.now() - t0;
    await rest(first.sampler, 'at rest after the walk');
    first.sampler.phase = 'stopping';
    await first.stop();
    for (const [phase, samples] of first.sampler.samples) phases.push({ phase, samples });

    const second = await startEmbedded(dataDir, 'second start');
    timings.secondStartMs = second.readyMs;
    await rest(second.sampler, 'at rest after the second start');
    second.sampler.phase = 'stopping';
    await second.stop();
    for (const [phase, samples] of second.sampler.samples) phases.push({ phase, samples });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const rows = phases
    .filter((p) => !p.phase.includes('settling') && p.phase !== 'stopping' && p.samples.length)
    .map(({ phase, samples }) => ({
      phase,
      samples: samples.length,
      peakMiB: peak(samples),
      medianMiB: median(samples),
      endMiB: mib(samples.at(-1)!.rss),
      endAnonMiB: mib(samples.at(-1)!.anon),
      endFileMiB: mib(samples.at(-1)!.file),
      processes: Math.max(...samples.map((s) => s.processes)),
    }));
  console.log('\n| phase | samples | peak RSS MiB | median MiB | end MiB | end anon MiB | end file MiB | processes |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.phase} | ${r.samples} | ${r.peakMiB} | ${r.medianMiB} | ${r.endMiB} | ${r.endAnonMiB} | ${r.endFileMiB} | ${r.processes} |`,
    );
  console.log(
    `\nfirst start ${timings.firstStartMs} ms, walk ${timings.walkMs} ms (${walk?.requests} requests), second start ${timings.secondStartMs} ms`,
  );
  const worst = Math.max(...rows.map((r) => r.peakMiB));
  const restWorst = Math.max(...rows.filter((r) => r.phase !== 'first start').map((r) => r.peakMiB));
  console.log(`highest RSS outside the first start: ${restWorst} MiB; highest overall: ${worst} MiB (goal: 400 MiB)`);

  const at = `${new Date().toISOString().replace(/:/g, '-').replace(/\..+$/, '')}-embedded-memory${process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : ''}`;
  const out = `${REPO_ROOT}bench/results`;
  mkdirSync(out, { recursive: true });
  const result = {
    date: new Date().toISOString(),
    machine: describeMachine(),
    node: process.version,
    serviceNodeOptions: SERVICE_NODE_OPTIONS,
    ...(SERVICE_DIR ? { serviceDir: SERVICE_DIR } : {}),
    serviceCommit: gitHead(dir),
    sampleMs: SAMPLE_MS,
    settleMs: SETTLE_MS,
    timings,
    walk,
    phases: rows,
  };
  writeFileSync(`${out}/${at}.json`, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote bench/results/${at}.json`);
}
