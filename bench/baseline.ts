/**
 * The raw-PostgreSQL baselines, with plain `pg`, no HTTP, queue or ORM; every service figure is
 * printed as a ratio of the baseline of its kind at the same concurrency.
 * - sale: the same database work as one attributed sale (same rows, same unique checks, one
 *   transaction);
 * - refund: the same work as one partial refund of a credited commission, in one transaction: the
 *   sale's row lock, the refund-id check, the cumulative refunded total, the proportional reversal
 *   of the commission, the partner balance and its ledger entry, the open-payout check and the
 *   partner's notification row.
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
  /** Sale: commission created; refund: commission reversed. */
  commissionCents: number;
  /** Refund: calls that found the commission already reversed (nothing written). */
  skipped?: number;
};

/** Pool size used for `concurrency` loops: one connection per loop, capped under max_connections. */
export const baselinePoolSize = (concurrency: number) => Math.min(concurrency, 32);

type DriveOptions = {
  concurrency: number;
  durationMs: number;
  /** Called when the load stops, before the connections close (CPU accounting of their backends). */
  onLoadEnd?: () => void;
};

/**
 * Runs `one(client, i)` in one transaction per call from `concurrency` loops until the time is up;
 * a throw rolls the transaction back and counts as an error.
 */
async function drive(
  databaseUrl: string,
  o: DriveOptions,
  one: (c: pg.PoolClient, i: number) => Promise<void>,
): Promise<Omit<BaselineResult, 'commissionCents' | 'skipped'>> {
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
  const until = performance.now() + o.durationMs;
  const run = async (i: number) => {
    const c = await pool.connect();
    try {
      await c.query('begin');
      await one(c, i);
      await c.query('commit');
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
        await run(next++);
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
  };
}

export async function runBaseline(
  databaseUrl: string,
  f: LoadFixture,
  o: DriveOptions & {
    prefix: string;
    rateBps: number;
    feeBps: number;
    amount(i: number): number;
  },
): Promise<BaselineResult> {
  let commissionCents = 0;
  const r = await drive(databaseUrl, o, async (c, i) => {
    const transactionId = `${o.prefix}${i}`;
    const amount = o.amount(i);
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
    commissionCents += commission;
  });
  return { ...r, commissionCents };
}

/** `round(commission × refunded / amount)` half-up, the whole commission once fully refunded. */
const reversalTarget = (commission: number, refunded: number, amount: number) =>
  refunded >= amount
    ? commission
    : Number((2n * BigInt(commission) * BigInt(refunded) + BigInt(amount)) / (2n * BigInt(amount)));

/**
 * Partial refunds of `refundCents` each on `targets` (transaction ids of sales whose commissions are
 * credited), one refund id per call, as the service's refund case sends them.
 */
export async function runRefundBaseline(
  databaseUrl: string,
  f: LoadFixture,
  o: DriveOptions & { prefix: string; targets: string[]; refundCents: number },
): Promise<BaselineResult> {
  let commissionCents = 0;
  let skipped = 0;
  const r = await drive(databaseUrl, o, async (c, i) => {
    const refundId = `${o.prefix}${i}`;
    const {
      rows: [s],
    } = await c.query(
      `select s.id, s.amount_cents::int8 as amount, s.refunded_cents::int8 as refunded, s.transaction_id,
              c.id as commission_id, c.amount_cents::int8 as commission, c.reversed_cents::int8 as reversed, c.status,
              c.partner_id, c.currency, c.credited_at, c.paid_at
         from sale s join commission c on c.sale_id = s.id
        where s.program_id = $1 and s.transaction_id = $2 for update of s`,
      [f.programId, o.targets[i % o.targets.length]],
    );
    if (!s) throw new Error('no such sale');
    const dup = await c.query('select id from refund where sale_id = $1 and refund_id = $2', [s.id, refundId]);
    if (dup.rowCount) throw new Error('duplicate refund');
    if (s.status === 'reversed') {
      skipped++;
      return;
    }
    const amount = Number(s.amount);
    const applied = Math.min(o.refundCents, amount - Number(s.refunded));
    const refunded = Number(s.refunded) + applied;
    const deduction = Math.max(0, reversalTarget(Number(s.commission), refunded, amount) - Number(s.reversed));
    const status = refunded >= amount ? 'reversed' : 'refunded';
    const now = new Date();
    await c.query('update sale set refunded_cents = refunded_cents + $2 where id = $1', [s.id, applied]);
    const refund = await c.query(
      `insert into refund (program_id, sale_id, commission_id, refund_id, requested_cents, applied_cents, deduction_cents, balance_deduction_cents, reason, source, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7, 'refund', 'api', $8) returning id`,
      [f.programId, s.id, s.commission_id, refundId, o.refundCents, applied, deduction, now],
    );
    await c.query(
      'update commission set reversed_cents = reversed_cents + $2, status = $3, reason = $4, updated_at = $5 where id = $1',
      [s.commission_id, deduction, status, 'refund', now],
    );
    if (s.credited_at && deduction > 0) {
      await c.query(
        'update partner_balance set balance_cents = balance_cents - $3 where partner_id = $1 and currency = $2 returning balance_cents',
        [s.partner_id, s.currency, deduction],
      );
      await c.query(
        `insert into balance_entry (partner_id, currency, delta_cents, kind, commission_id, refund_id, created_at)
         values ($1, $2, $3, 'refund_deduction', $4, $5, $6)`,
        [s.partner_id, s.currency, -deduction, s.commission_id, refund.rows[0].id, now],
      );
      await c.query(`select id, amount_cents from payout where partner_id = $1 and currency = $2 and status = 'open'`, [
        s.partner_id,
        s.currency,
      ]);
    }
    // No delivery here: the row is written as delivered so the service's outbox leaves it alone.
    await c.query(
      `insert into notification (program_id, kind, partner_id, commission_id, payload, created_at, delivered_at)
       values ($1, 'partner_commission_refunded', $2, $3, $4, $5, $5)`,
      [
        f.programId,
        s.partner_id,
        s.commission_id,
        JSON.stringify({
          commission_id: s.commission_id,
          sale_id: s.id,
          transaction_id: s.transaction_id,
          status,
          deduction_cents: deduction,
          currency: s.currency,
          refund_reason: 'refund',
        }),
        now,
      ],
    );
    commissionCents += deduction;
  });
  return { ...r, commissionCents, skipped };
}
