/**
 * `ledger:verify` (`POST /programs/:id/ledger/verify`, reporting/verify-ledger.ts) over the whole
 * seeded program: each call's total time and the rows it read per second, and what it found (the
 * seed is written in SQL by the bench's own rules, so a difference is reported, not hidden).
 */
import { ADMIN_TOKEN } from '../config.ts';
import type { ReadTarget, ReadTiming } from '../reads.ts';
import { percentile } from '../report.ts';

type Answer = { rows: number; clean: boolean; differences: number; first_differences: Array<{ message: string }> };
const CALLS = Number(process.env.BENCH_LEDGER_CALLS ?? 3);

export async function runLedgerVerify(t: ReadTarget): Promise<ReadTiming[]> {
  const times: number[] = [];
  let errors = 0;
  let last: {
    rows: number;
    clean: boolean;
    differences: number;
    first_differences: Array<{ message: string }>;
  } | null = null;
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${t.url}/api/v1/admin/programs/${t.programId}/ledger/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await res.json()) as Answer;
    const ms = performance.now() - t0;
    times.push(ms);
    if (!res.ok) {
      errors++;
      console.log(`  ledger verify [${t.seed}]: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      continue;
    }
    last = body;
    console.log(
      `  ledger verify [${t.seed}]: ${body.rows} rows in ${(ms / 1000).toFixed(2)} s = ${Math.round(body.rows / (ms / 1000))} rows/s (${body.clean ? 'clean' : `${body.differences} differences; first: ${body.first_differences[0]?.message}`})`,
    );
  }
  const sorted = [...times].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return [
    {
      case: 'ledger verify',
      seed: t.seed,
      calls: times.length,
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0),
      bytes: 0,
      errors,
      note: last
        ? `${last.rows} rows, ${Math.round(last.rows / (percentile(sorted, 50) / 1000))} rows/s at p50; ${last.clean ? 'clean' : `${last.differences} differences`}`
        : 'no answer',
    },
  ];
}
