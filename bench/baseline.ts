/**
 * The raw-PostgreSQL baseline: the same database work as one attributed sale (same rows, same
 * unique checks, one transaction) with plain `pg`, no HTTP, queue or ORM. Every service figure is
 * printed as a ratio of this one at the same concurrency.
 */
import pg from 'pg';
import type { LoadFixture } from '../test/helpers/load-fixture.ts';
import { expectedCommission } from '../test/helpers/load-fixture.ts';
import { percentile } from './report.ts';

export type BaselineResult = {
  rps: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  completed: number;
  errors: number;
  poolSize: number;
  commissionCents: number;
};

/** Pool size used for `concurrency` loops: one connection per loop, capped under max_connections. */
export const baselinePoolSize = (concurrency: number) => Math.min(concurrency, 32);

export async function runBaseline(
  databaseUrl: string,
  f: LoadFixture,
  o: {
    concurrency: number;
    durationMs: number;
    prefix: string;
    rateBps: number;
    feeBps: number;
    amount(i: number): number;
    /** Called when the load stops, before the connections close (CPU accounting of their backends). */
    onLoadEnd?: () => void;
  },
): Promise<BaselineResult> {
  const poolSize = baselinePoolSize(o.concurrency);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  pool.on('error', () => {});
  // Open the connections before the clock starts, as the service's pool is warm too.
  await Promise.all(
    Array.from({ length: poolSize }, async () => {
      const c = await pool.connect();
      c.release();
    }),
  );
  const times: number[] = [];
  let next = 0;
  let errors = 0;
  let commissionCents = 0;
  const until = performance.now() + o.durationMs;
  const one = async (i: number) => {
    const transactionId = `${o.prefix}${i}`;
    const amount = o.amount(i);
    const c = await pool.connect();
    try {
      await c.query('begin');
      const dup = await c.query('select id from sale where program_id = $1 and transaction_id = $2', [
        f.programId,
        transactionId,
      ]);
      if (dup.rowCount) throw new Error('duplicate');
      const cust = await c.query('select id, click_id from customer where program_id = $1 and customer_key = $2', [
        f.programId,
        f.customerKey(i % f.customers),
      ]);
      const customer = cust.rows[0];
      const click = await c.query('select id, partner_id, clicked_at from click where id = $1 and program_id = $2', [
        customer.click_id,
        f.programId,
      ]);
      const partnerId = click.rows[0].partner_id;
      const now = new Date();
      const sale = await c.query(
        `insert into sale (program_id, transaction_id, amount_cents, currency, sale_type, is_recurring, customer_id, partner_id, click_id, refunded_cents, received_at)
         values ($1, $2, $3, 'USD', 'payment', false, $4, $5, $6, 0, $7) returning id`,
        [f.programId, transactionId, amount, customer.id, partnerId, customer.click_id, now],
      );
      const saleId = sale.rows[0].id;
      await c.query(
        'insert into platform_fee (program_id, sale_id, amount_cents, currency, rate_bps, created_at) values ($1, $2, $3, $4, $5, $6)',
        [f.programId, saleId, expectedCommission(amount, o.feeBps), 'USD', o.feeBps, now],
      );
      const commission = expectedCommission(amount, o.rateBps);
      await c.query(
        `insert into commission (program_id, sale_id, partner_id, amount_cents, reversed_cents, currency, rate_bps, status, created_at, updated_at)
         values ($1, $2, $3, $4, 0, 'USD', $5, 'pending', $6, $6) returning id`,
        [f.programId, saleId, partnerId, commission, o.rateBps, now],
      );
      await c.query('commit');
      commissionCents += commission;
    } catch (err) {
      errors++;
      await c.query('rollback').catch(() => {});
      if (errors === 1) console.error('baseline error:', (err as Error).message);
    } finally {
      c.release();
    }
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await one(next++);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  o.onLoadEnd?.();
  await pool.end();
  times.sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    rps: round((times.length - errors) / elapsed),
    latency: {
      p50: round(percentile(times, 50)),
      p90: round(percentile(times, 90)),
      p99: round(percentile(times, 99)),
      max: round(times.at(-1) ?? 0),
    },
    completed: times.length - errors,
    errors,
    poolSize,
    commissionCents,
  };
}
