/**
 * Timing of read paths for the data-volume bench: sequential calls after a warm-up, percentiles in
 * ms, and the small-vs-large comparison table.
 */
import type pg from 'pg';
import { percentile } from './report.ts';
import { ADMIN_TOKEN } from './config.ts';

/** What a read case runs against: one service with one seeded program. */
export type ReadTarget = {
  seed: string;
  url: string;
  programId: number;
  liveKey: string;
  /** The partner with the most rows (the portal and statement cases read as them). */
  partnerId: number;
  pool: pg.Pool;
};

export type ReadTiming = {
  case: string;
  seed: string;
  calls: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Bytes of the last answer. */
  bytes: number;
  errors: number;
  /** Time to the first byte of the body (CSV downloads), p50 ms. */
  ttfbP50?: number;
  note?: string;
};

export const READ_CALLS = Number(process.env.BENCH_READ_CALLS ?? 30);
const WARMUP = Number(process.env.BENCH_READ_WARMUP ?? 3);
/** A case stops early (after at least 5 calls) once its calls took this long: a deep offset can take seconds. */
const BUDGET_MS = Number(process.env.BENCH_READ_BUDGET_S ?? 20) * 1000;

export type CallResult = { status: number; bytes: number; ttfbMs: number };

/** A GET of the service, the body read to its end; the time to its first body chunk too. */
export async function get(url: string, headers: Record<string, string>): Promise<CallResult> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  let ttfbMs = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (!bytes) ttfbMs = performance.now() - t0;
    bytes += chunk.byteLength;
  }
  return { status: res.status, bytes, ttfbMs };
}

export const admin = (t: ReadTarget, path: string) =>
  get(`${t.url}/api/v1/admin/programs/${t.programId}${path}`, { authorization: `Bearer ${ADMIN_TOKEN}` });

const ms = (v: number) => Math.round(v * 10) / 10;

/**
 * Times `call` over `calls` sequential calls after `warmup` unmeasured ones; a non-2xx is an error
 * (its time is still counted). Prints one line.
 */
export async function timeCalls(
  t: ReadTarget,
  name: string,
  call: () => Promise<CallResult>,
  o: { calls?: number; warmup?: number; note?: string } = {},
): Promise<ReadTiming> {
  const calls = o.calls ?? READ_CALLS;
  let errors = 0;
  let bytes = 0;
  let firstError = '';
  for (let i = 0; i < (o.warmup ?? WARMUP); i++) await call();
  const times: number[] = [];
  const ttfb: number[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const r = await call();
    times.push(performance.now() - t0);
    ttfb.push(r.ttfbMs);
    bytes = r.bytes;
    if (r.status < 200 || r.status > 299) {
      errors++;
      firstError ||= `HTTP ${r.status}`;
    }
    if (i >= 4 && performance.now() - started > BUDGET_MS) break;
  }
  const sorted = [...times].sort((a, b) => a - b);
  const row: ReadTiming = {
    case: name,
    seed: t.seed,
    calls: times.length,
    p50: ms(percentile(sorted, 50)),
    p95: ms(percentile(sorted, 95)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted[sorted.length - 1] ?? 0),
    bytes,
    errors,
    ...(o.note ? { note: o.note } : {}),
  };
  if (ttfb.some((v) => v > 0))
    row.ttfbP50 = ms(
      percentile(
        [...ttfb].sort((a, b) => a - b),
        50,
      ),
    );
  console.log(
    `${t.seed.padEnd(5)} ${name.padEnd(40)} ${String(row.calls).padStart(3)} calls  p50 ${row.p50} p95 ${row.p95} p99 ${row.p99} max ${row.max} ms  ${bytes} B${row.ttfbP50 !== undefined ? `  ttfb p50 ${row.ttfbP50} ms` : ''}${errors ? `  ${errors} errors (${firstError})` : ''}`,
  );
  return row;
}

const x = (a: number | undefined, b: number | undefined) => (a && b !== undefined ? `${(b / a).toFixed(1)}×` : '–');

/** Markdown: every case with its small and large percentiles side by side and the large ÷ small ratios. */
export function comparisonTable(rows: ReadTiming[], small = 'small', large = 'large'): string {
  const names = [...new Set(rows.map((r) => r.case))];
  const head = `| case | ${small} p50 / p95 / p99 ms | ${large} p50 / p95 / p99 ms | × p50 | × p95 | calls (${large}) | errors |`;
  const sep = '|---|---:|---:|---:|---:|---:|---:|';
  const cell = (r?: ReadTiming) => (r ? `${r.p50} / ${r.p95} / ${r.p99}` : '–');
  const body = names.map((n) => {
    const s = rows.find((r) => r.case === n && r.seed === small);
    const l = rows.find((r) => r.case === n && r.seed === large);
    return `| ${n}${l?.note ? ` (${l.note})` : ''} | ${cell(s)} | ${cell(l)} | ${x(s?.p50, l?.p50)} | ${x(s?.p95, l?.p95)} | ${l?.calls ?? '–'} | ${(s?.errors ?? 0) + (l?.errors ?? 0)} |`;
  });
  return [head, sep, ...body].join('\n');
}
