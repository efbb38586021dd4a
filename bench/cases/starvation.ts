/**
 * Tracking beside heavy reports (`BENCH_CASES=starvation`): does a report starve clicks? Seeds
 * STARVATION_SALES (150,000) attributed sales over the last 366 days, then sends clicks at a fixed
 * 20 per second (open loop: one every 50 ms whatever the answers, so a stalled service shows in
 * the latency, not as fewer requests) for STARVATION_SECONDS (20) with nothing else running
 * (idle), then again while STARVATION_CLIENTS (10) clients each loop on a heavy report of the same
 * program: the 366-day reward-rules what-if, the sales CSV export of the year, the rollup check of
 * the year (BENCH_STARVATION_LOADS, default preview,export,check). A client answered 429 retries
 * after 250 ms (harder than the `retry_after_seconds` it is given; BENCH_STARVATION_RETRY=after waits it). Prints click p99 idle (measured right before
 * each load) and under it and their ratio (goal ≤ 2), the reports' own times and answers, the service's
 * event-loop delay (p99 and max, from its /metrics, reset by each scrape) and the most database
 * connections of its database in use at once (pg_stat_activity sampled every 100 ms).
 */
import { ADMIN_TOKEN, type BenchContext, sleep } from '../config.ts';
import { record } from '../measure.ts';
import { percentile } from '../report.ts';
import { seedAttributedSales } from './preview.ts';

const SALES = Number(process.env.BENCH_STARVATION_SALES ?? 150_000);
const CLIENTS = Number(process.env.BENCH_STARVATION_CLIENTS ?? 10);
const SECONDS = Number(process.env.BENCH_STARVATION_SECONDS ?? 20);
const LOADS = (process.env.BENCH_STARVATION_LOADS ?? 'preview,export,check').split(',');
const CLICKS_PER_SECOND = 20;
const DAY_MS = 86_400_000;
const GOAL_RATIO = 2;
/** BENCH_STARVATION_RETRY=after: a client answered 429 waits its `Retry-After`, as a well-behaved client does. */
const RETRY_AFTER_429 = process.env.BENCH_STARVATION_RETRY === 'after';

/** Proposed rules with a tier on monthly sales (as the preview case's). */
const PROPOSED = {
  sale: { type: 'percent', bps: 1200 },
  tiers: {
    metric: 'sales',
    period: 'calendar_month',
    steps: [{ from: 100, reward: { type: 'percent', bps: 1500 } }],
  },
};

type Load = { name: string; call(signal: AbortSignal): Promise<Response> };

function loads(ctx: BenchContext): Load[] {
  const admin = `${ctx.svc.url}/api/v1/admin/programs/${ctx.f.programId}`;
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const to = new Date();
  const from = new Date(to.getTime() - 366 * DAY_MS);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const all: Load[] = [
    {
      name: 'preview',
      call: (signal) =>
        fetch(`${admin}/rules/preview`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ reward_rules: PROPOSED, from: from.toISOString(), to: to.toISOString() }),
          signal,
        }),
    },
    {
      name: 'export',
      call: (signal) =>
        fetch(`${admin}/exports/sales.csv?from=${from.toISOString()}&to=${to.toISOString()}`, {
          headers: auth,
          signal,
        }),
    },
    {
      name: 'check',
      call: (signal) =>
        fetch(`${admin}/stats/check?from=${day(new Date(from.getTime() + DAY_MS))}&to=${day(to)}`, {
          headers: auth,
          signal,
        }),
    },
  ];
  return all.filter((l) => LOADS.includes(l.name));
}

type Clicks = { latencies: number[]; answered: number; failed: number; statuses: Record<string, number> };

/** Clicks at a fixed rate for `seconds` (open loop), each timed from its send to its answer. */
async function pacedClicks(ctx: BenchContext, prefix: string, seconds: number): Promise<Clicks> {
  const out: Clicks = { latencies: [], answered: 0, failed: 0, statuses: {} };
  const codes = ctx.f.partnerCodes;
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  const total = seconds * CLICKS_PER_SECOND;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / CLICKS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    pending.push(
      fetch(`${ctx.svc.url}/api/v1/track/click`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          affiliate_url: `https://shop.example/?aff=${codes[i % codes.length]}&r=${prefix}${i}`,
        }),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          out.latencies.push(performance.now() - t0);
          out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
          if (res.status === 200) out.answered++;
          else out.failed++;
        },
        () => {
          out.failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  return out;
}

type LoopStats = { ok: number[]; rejected: number; timedOut: number; other: Record<string, number> };

/** `CLIENTS` clients each calling `load` until `stop` aborts; a 429 waits 250 ms. */
function reportClients(load: Load, stop: AbortController): { stats: LoopStats; done: Promise<unknown> } {
  const stats: LoopStats = { ok: [], rejected: 0, timedOut: 0, other: {} };
  const client = async () => {
    while (!stop.signal.aborted) {
      const t0 = performance.now();
      try {
        const res = await load.call(stop.signal);
        await res.arrayBuffer();
        if (res.status === 200) stats.ok.push(performance.now() - t0);
        else if (res.status === 429) stats.rejected++;
        else if (res.status === 503) stats.timedOut++;
        else stats.other[res.status] = (stats.other[res.status] ?? 0) + 1;
        if (res.status === 429) await sleep(RETRY_AFTER_429 ? Number(res.headers.get('retry-after') ?? 1) * 1000 : 250);
      } catch (err) {
        if (stop.signal.aborted) break;
        const name = (err as Error).name;
        stats.other[name] = (stats.other[name] ?? 0) + 1;
        await sleep(250);
      }
    }
  };
  return { stats, done: Promise.all(Array.from({ length: CLIENTS }, client)) };
}

/** The service's event-loop delay since the previous scrape (prom-client resets it on each). */
async function loopDelay(ctx: BenchContext): Promise<{ p99Ms: number; maxMs: number } | null> {
  if (!ctx.metricsToken) return null;
  const res = await fetch(`${ctx.svc.url}/metrics`, { headers: { authorization: `Bearer ${ctx.metricsToken}` } });
  const text = await res.text();
  const read = (name: string) => {
    const m = new RegExp(`^tracker_process_nodejs_eventloop_lag_${name}_seconds\\s+(\\S+)`, 'm').exec(text);
    return m ? Math.round(Number(m[1]) * 1000) : NaN;
  };
  return { p99Ms: read('p99'), maxMs: read('max') };
}

/** The most connections to the service's database busy at once (not idle) while `run` runs. */
async function busyConnections<T>(ctx: BenchContext, run: () => Promise<T>): Promise<{ r: T; maxBusy: number }> {
  let maxBusy = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await ctx.db.pool.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity
          where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
      );
      maxBusy = Math.max(maxBusy, Number(rows[0]?.n ?? 0));
      await sleep(100);
    }
  })();
  try {
    return { r: await run(), maxBusy };
  } finally {
    sampling = false;
    await sampler;
  }
}

const p = (xs: number[], q: number) =>
  Math.round(
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    ),
  );

function clickRow(ctx: BenchContext, name: string, c: Clicks, extra: Record<string, unknown>) {
  return record(
    ctx,
    {
      case: name,
      concurrency: CLICKS_PER_SECOND,
      rps: c.answered / SECONDS,
      ratio: NaN,
      latency: { p50: p(c.latencies, 50), p90: p(c.latencies, 90), p99: p(c.latencies, 99), max: p(c.latencies, 100) },
      errors: c.failed,
      peakRssMiB: null,
      consistent: null,
      note: `${CLICKS_PER_SECOND} clicks/s`,
      extra: { statuses: c.statuses, ...extra },
    },
    null,
  );
}

export async function runStarvation(ctx: BenchContext): Promise<void> {
  const { db, f } = ctx;
  const seeded = Date.now();
  await seedAttributedSales(db, f.programId, { prefix: 'starve-', count: SALES, spreadSeconds: 366 * 86_400 });
  await db.pool.query('analyze sale, commission');
  console.log(`starvation: seeded ${SALES} sales over 366 days in ${((Date.now() - seeded) / 1000).toFixed(1)}s`);

  // Warm-up: each report once alone (its time without competition), and a few clicks.
  for (const l of loads(ctx)) {
    const t0 = performance.now();
    const res = await l.call(new AbortController().signal);
    await res.arrayBuffer();
    console.log(`starvation: one ${l.name} alone: HTTP ${res.status} in ${Math.round(performance.now() - t0)} ms`);
  }
  await pacedClicks(ctx, 'starve-warm-', 2);

  for (const load of loads(ctx)) {
    // Idle right before each load: other work on a shared host changes over minutes, so each load
    // is compared with the idle run next to it.
    await loopDelay(ctx);
    const idle = await busyConnections(ctx, () => pacedClicks(ctx, `starve-idle-${load.name}-`, SECONDS));
    const idleLoop = await loopDelay(ctx);
    const idleP99 = p(idle.r.latencies, 99);
    clickRow(ctx, `click idle (before ${load.name})`, idle.r, {
      eventLoop: idleLoop,
      maxBusyConnections: idle.maxBusy,
    });
    const stop = new AbortController();
    const clients = reportClients(load, stop);
    await loopDelay(ctx);
    const during = await busyConnections(ctx, () => pacedClicks(ctx, `starve-${load.name}-`, SECONDS));
    const loop = await loopDelay(ctx);
    stop.abort();
    await clients.done;
    const s = clients.stats;
    const reports = {
      clients: CLIENTS,
      completed: s.ok.length,
      p50Ms: p(s.ok, 50),
      maxMs: p(s.ok, 100),
      rejected429: s.rejected,
      timedOut503: s.timedOut,
      other: s.other,
    };
    const ratio = Math.round((p(during.r.latencies, 99) / Math.max(1, idleP99)) * 100) / 100;
    clickRow(ctx, `click during ${CLIENTS} × ${load.name}`, during.r, {
      p99RatioToIdle: ratio,
      goalRatio: GOAL_RATIO,
      reports,
      eventLoop: loop,
      maxBusyConnections: during.maxBusy,
    });
    console.log(
      `starvation/${load.name}: click p99 ${idleP99} ms idle → ${p(during.r.latencies, 99)} ms (${ratio}×, goal ≤ ${GOAL_RATIO}); clicks ${idle.r.answered / SECONDS} → ${during.r.answered / SECONDS}/s; ${load.name}s ${JSON.stringify(reports)}; event loop p99/max ${loop?.p99Ms}/${loop?.maxMs} ms (idle ${idleLoop?.p99Ms}/${idleLoop?.maxMs}); busy db connections ≤ ${during.maxBusy} (idle ≤ ${idle.maxBusy})`,
    );
    // Let the service finish what the aborted clients left running before the next load.
    await waitIdle(ctx);
  }
}

/** Until no query of the service's database has run for a second (bounded: 2 minutes). */
async function waitIdle(ctx: BenchContext): Promise<void> {
  const t0 = performance.now();
  let quiet = 0;
  while (quiet < 5 && performance.now() - t0 < 120_000) {
    const { rows } = await ctx.db.pool.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity
        where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
    );
    quiet = Number(rows[0]?.n) === 0 ? quiet + 1 : 0;
    await sleep(200);
  }
}
