/**
 * The commissions CSV export (`GET /programs/:id/exports/commissions.csv`) over EXPORT_ROWS
 * commissions (default 1,000,000; seeded in SQL, with their sales, on top of what earlier cases
 * recorded): rows and bytes streamed, the time, and how far the service's RSS rose above its level
 * before the download (goal: under 50 MiB; the export reads 1,000 rows at a time).
 */
import { ADMIN_TOKEN, type BenchContext } from '../config.ts';
import { record, rssKiB } from '../measure.ts';
import { seedAttributedSales } from './preview.ts';

const EXPORT_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const GOAL_MIB = 50;

export async function runExport(ctx: BenchContext): Promise<void> {
  const { svc, db, f } = ctx;
  const existing = Number(
    (await db.pool.query('select count(*) as n from commission where program_id = $1', [f.programId])).rows[0].n,
  );
  const missing = Math.max(0, EXPORT_ROWS - existing);
  const seeded = Date.now();
  if (missing) await seedAttributedSales(db, f.programId, { prefix: 'export-', count: missing, spreadSeconds: 86_400 });
  // As autovacuum would after a bulk load: the planner needs the new row counts.
  await db.pool.query('analyze sale, commission');
  console.log(`export: seeded ${missing} commissions in ${((Date.now() - seeded) / 1000).toFixed(1)}s`);

  const before = rssKiB(svc);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssKiB(svc));
  }, 50);
  const t0 = performance.now();
  let bytes = 0;
  let lines = 0;
  const res = await fetch(`${svc.url}/api/v1/admin/programs/${f.programId}/exports/commissions.csv`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const status = res.status;
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const b of chunk) if (b === 10) lines++;
    }
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  const rows = lines - 1;
  const riseMiB = Math.round(((peak - before) / 1024) * 10) / 10;
  const expected = existing + missing;
  console.log(
    `export: ${rows} rows, ${(bytes / 2 ** 20).toFixed(0)} MiB of CSV in ${(ms / 1000).toFixed(1)}s (${Math.round(rows / (ms / 1000))} rows/s); service RSS ${Math.round(before / 1024)} → peak ${Math.round(peak / 1024)} MiB, rise ${riseMiB} MiB (goal < ${GOAL_MIB} MiB)`,
  );
  record(
    ctx,
    {
      case: 'export',
      concurrency: 1,
      rps: rows / (ms / 1000),
      // No raw-pg counterpart.
      ratio: NaN,
      latency: { p50: Math.round(ms), p90: Math.round(ms), p99: Math.round(ms), max: Math.round(ms) },
      errors: status === 200 ? 0 : 1,
      peakRssMiB: Math.round(peak / 1024),
      consistent: status === 200 && rows === expected && riseMiB < GOAL_MIB,
      extra: { rows, bytes, seconds: ms / 1000, rssBeforeMiB: before / 1024, rssRiseMiB: riseMiB, goalMiB: GOAL_MIB },
    },
    null,
  );
}
