/** How a run is measured: load, CPU and memory of the service, which answers came back, the report line. */
import autocannon, { type Result as CannonResult } from 'autocannon';
import { readAllProcessCpu, readCpuTimes, readHostCpu, readMemoryKiB } from '../test/helpers/proc-stats.ts';
import { CALLGRIND_DIR, startCounting, stopCounting } from './callgrind.ts';
import { AMOUNT, type BenchContext, type Extra, type Run, type Target } from './config.ts';

/** Adds a run to the results with its ratio to `of` (the sale baseline by default) and prints it. */
export function record(ctx: BenchContext, r: Run, of: Map<number, number> | null = ctx.baseline.sale): Run {
  const row = of ? { ...r, ratio: of.has(r.concurrency) ? r.rps / (of.get(r.concurrency) as number) : NaN } : r;
  ctx.runs.push(row);
  report(row);
  return row;
}

function report(r: Run): void {
  const withDelivery = (r.extra as Extra | undefined)?.serviceCpuMsPerRefundWithDelivery;
  if (withDelivery !== undefined)
    console.log(`  service CPU per refund including its notification delivery: ${withDelivery} ms`);
  const ratio = r.ratio === null ? '' : ` (${(r.ratio * 100).toFixed(0)}% of raw pg)`;
  const ir = r.cpu?.instructionsPerRequest;
  if (ir) console.log(`${r.case} c=${r.concurrency}: ${ir.toLocaleString('en')} instructions per request`);
  console.log(
    `${r.case.padEnd(16)} c=${String(r.concurrency).padEnd(4)} ${r.rps.toFixed(0).padStart(6)} req/s${ratio}  p50 ${r.latency.p50} p90 ${r.latency.p90} p99 ${r.latency.p99} max ${r.latency.max} ms  errors ${r.errors}  rss ${r.peakRssMiB ?? '–'} MiB  cpu ${r.cpu?.serviceMsPerRequest ?? '–'} ms/req (sys ${r.cpu?.serviceSystemMsPerRequest ?? '–'}), host ${r.cpu?.hostBusyPct ?? '–'}%${r.cpu?.cores ? ` ${JSON.stringify(r.cpu.cores)}` : ''}  consistent ${r.consistent}`,
  );
}

/** Resident memory of all the service's processes together, KiB. */
export const rssKiB = (t: Target) => t.pids.map(readMemoryKiB).reduce((sum, m) => sum + (m?.rss ?? 0), 0);
export function cpuTimes(t: Target): { user: number; system: number } | null {
  const all = t.pids.map(readCpuTimes);
  if (all.some((x) => x === null)) return null;
  return all.reduce<{ user: number; system: number }>(
    (a, x) => ({ user: a.user + (x?.user ?? 0), system: a.system + (x?.system ?? 0) }),
    { user: 0, system: 0 },
  );
}

export type Cannon = {
  res: CannonResult;
  peakRssMiB: number | null;
  serviceCpu: { user: number; system: number } | null;
  hostBusyPct: number;
  cpuShare: Record<string, number>;
  /** Instructions the service executed during the run (BENCH_CALLGRIND), else null. */
  instructions: number | null;
};

/**
 * Where the host's CPU went during a run, in cores (1.0 = one core busy all the time): the
 * service, PostgreSQL, Redis, this benchmark process (autocannon) and anything else running.
 */
export function cpuShare(
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
export async function measureBaseline<B>(
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
export async function cannon(
  svc: Target,
  connections: number,
  seconds: number,
  request: NonNullable<Parameters<typeof autocannon>[0]['requests']>[number],
  /** Leave the instruction count running (the caller stops it, e.g. once webhooks are processed). */
  o: { keepCounting?: boolean } = {},
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
  startCounting(svc.pids);
  try {
    const res = await autocannon({
      url: svc.url,
      connections,
      ...(AMOUNT ? { amount: AMOUNT } : { duration: seconds }),
      timeout: CALLGRIND_DIR ? 600 : 30,
      requests: [request],
    });
    sample();
    const cpu1 = cpuTimes(svc);
    const host1 = readHostCpu();
    return {
      res,
      peakRssMiB: peak ? Math.round(peak / 1024) : null,
      serviceCpu: cpu0 && cpu1 ? { user: cpu1.user - cpu0.user, system: cpu1.system - cpu0.system } : null,
      hostBusyPct: Math.round((100 * (host1.busy - host0.busy)) / Math.max(1, host1.total - host0.total)),
      cpuShare: cpuShare(procs0, readAllProcessCpu(), svc.pids, (performance.now() - t0) / 1000),
      instructions: o.keepCounting ? null : stopCounting(svc.pids),
    };
  } finally {
    clearInterval(timer);
  }
}

export const perRequest = (ms: number | null, n: number) =>
  ms === null || !n ? null : Math.round((100 * ms) / n) / 100;

export const perInstruction = (instructions: number | null, n: number) =>
  instructions === null || !n ? null : Math.round(instructions / n);

export function rowOf(name: string, c: number, k: Cannon): Run {
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
      instructionsPerRequest: perInstruction(k.instructions, res['2xx']),
    },
  };
}

type LoadRequest = NonNullable<Parameters<typeof autocannon>[0]['requests']>[number];

/**
 * The request of a run: each send takes the next number of `l` and is built from it (`build`);
 * its answer is recorded against that number, done when `accept` says so (default: a 200), failed
 * otherwise (the first few kept in `bad`).
 */
export function numbered(
  l: Ledger,
  bad: Sampler,
  o: {
    path: string;
    headers?: Record<string, string>;
    build(i: number): { body: string; headers?: Record<string, string> };
    accept?(status: number, text: string, i: number): boolean;
  },
): LoadRequest {
  const accept = o.accept ?? ((status: number) => status === 200);
  return {
    method: 'POST',
    path: o.path,
    headers: o.headers,
    setupRequest(req, ctx) {
      const i = l.take();
      ctx.i = i;
      const built = o.build(i);
      return { ...req, body: built.body, ...(built.headers ? { headers: built.headers } : {}) };
    },
    onResponse(status, text, ctx) {
      const i = ctx.i as number;
      if (accept(status, text, i)) l.ok.add(i);
      else {
        l.failed.add(i);
        bad.add(status, text);
      }
    },
  };
}

/** Remembers the first few unexpected responses, for the report. */
export function sampler() {
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
export function ledger() {
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
export type Ledger = ReturnType<typeof ledger>;
export type Sampler = ReturnType<typeof sampler>;
