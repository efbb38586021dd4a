/** Partial refunds of credited commissions through the API, and their raw-pg baseline. */
import type { TempDatabase } from '../../test/helpers/temp-database.ts';
import type { LoadFixture } from '../../test/helpers/load-fixture.ts';
import { baselinePoolSize, runRefundBaseline } from '../baseline.ts';
import {
  DURATION_S,
  LEVELS,
  REFUND_CENTS,
  sleep,
  type BenchContext,
  type Extra,
  type Run,
  runOf,
  type CaseRun,
} from '../config.ts';
import { cannon, cpuTimes, ledger, measureBaseline, numbered, record, rowOf, sampler } from '../measure.ts';

/** The program's sales whose transaction id is (`base`) or is not a raw-pg baseline's. */
async function saleIds(ctx: BenchContext, base: boolean): Promise<string[]> {
  const { rows } = await ctx.db.pool.query<{ transaction_id: string }>(
    `select transaction_id from sale where program_id = $1 and (transaction_id like 'base%') = $2 order by id`,
    [ctx.f.programId, base],
  );
  return rows.map((r) => r.transaction_id);
}

/** The raw-pg refund at each concurrency, over the raw-pg baseline's sales. */
export async function runRefundBaselines(ctx: BenchContext): Promise<void> {
  const { svc, db, f } = ctx;
  const targets = await saleIds(ctx, true);
  for (const c of LEVELS) {
    if (!targets.length) break;
    const { b, cpu } = await measureBaseline(svc, (onLoadEnd) =>
      runRefundBaseline(db.url, f, {
        concurrency: c,
        durationMs: DURATION_S * 1000,
        prefix: `baserf${c}-`,
        targets,
        refundCents: REFUND_CENTS,
        onLoadEnd,
      }),
    );
    ctx.baseline.refund.set(c, b.rps);
    const check = await checkRefunds(db, f, `baserf${c}-`);
    const ok = check.ok && check.rows === b.completed - (b.skipped ?? 0);
    record(
      ctx,
      {
        case: 'raw pg refund',
        concurrency: c,
        rps: b.rps,
        ratio: null,
        latency: b.latency,
        errors: b.errors,
        peakRssMiB: null,
        consistent: ok,
        note: `pool ${baselinePoolSize(c)}`,
        cpu,
        extra: { check: { ...check, ok, completed: b.completed, reversedCents: b.commissionCents } },
      },
      null,
    );
  }
}

/** The API refund at each concurrency, over the service's own sales (each run continuing where the last stopped). */
export async function runRefunds(ctx: BenchContext): Promise<void> {
  const targets = await saleIds(ctx, false);
  let offset = 0;
  for (const c of LEVELS) {
    const r = await refundCase(runOf(ctx, c, `rf${c}-`), targets, offset);
    offset += Number((r.extra as Extra).sent);
    record(ctx, r, ctx.baseline.refund);
  }
}

export async function refundCase(
  { svc, db, f, c, seconds, prefix }: CaseRun,
  targets: string[],
  offset: number,
): Promise<Run> {
  const l = ledger();
  const deductions = new Map<number, number>();
  let skipped = 0;
  const bad = sampler();
  const cpuStart = cpuTimes(svc);
  const k = await cannon(
    svc,
    c,
    seconds,
    numbered(l, bad, {
      path: '/api/v1/track/refund',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.liveKey}` },
      build: (i) => ({
        body: JSON.stringify({
          transaction_id: targets[(offset + i) % targets.length],
          refund_amount_cents: REFUND_CENTS,
          refund_id: `${prefix}${i}`,
          reason: 'refund',
        }),
      }),
      // Applied, with the deduction it reports; a skipped refund (its sale fully refunded) is counted apart.
      accept: (status, text, i) => {
        if (status !== 200) return false;
        const b = JSON.parse(text);
        if (b.status === 'refunded' || b.status === 'reversed') {
          deductions.set(i, b.deductionAmount);
          return true;
        }
        skipped++;
        return false;
      },
    }),
  );
  await waitForNotificationsDelivered(db, 60_000);
  // The refunds' notifications may still be delivering when the load stops: service CPU per
  // applied refund up to the last delivery, so moving delivery between jobs cannot hide its cost.
  const cpuEnd = cpuTimes(svc);
  const withDeliveryMsPerRefund =
    cpuStart && cpuEnd && l.ok.size
      ? Math.round((100 * (cpuEnd.user + cpuEnd.system - cpuStart.user - cpuStart.system)) / l.ok.size) / 100
      : null;
  const { rows: mineRows } = await db.pool.query<{ refund_id: string; deduction_cents: string }>(
    `select r.refund_id, r.deduction_cents from refund r join sale s on s.id = r.sale_id where s.program_id = $1 and r.refund_id like $2`,
    [f.programId, `${prefix}%`],
  );
  const cmp = l.compare(mineRows.map((r) => Number(r.refund_id.slice(prefix.length))));
  // The deduction each 2xx reported is the one stored.
  const wrongDeduction = mineRows.filter((r) => {
    const i = Number(r.refund_id.slice(prefix.length));
    return deductions.has(i) && deductions.get(i) !== Number(r.deduction_cents);
  }).length;
  const inv = await refundInvariants(db, f);
  const ok = cmp.missing === 0 && cmp.unexpected === 0 && cmp.duplicates === 0 && wrongDeduction === 0 && inv.ok;
  return {
    ...rowOf('refund', c, k),
    consistent: ok,
    extra: {
      check: { ok, ...cmp, skipped, wrongDeduction, refundedSales: inv },
      serviceCpuMsPerRefundWithDelivery: withDeliveryMsPerRefund,
      sent: l.built,
      statusCodes: k.res.statusCodeStats,
      unexpected: bad.samples,
    },
  };
}

/**
 * Credits every uncredited commission of the program, as approval does (status `approved` unless
 * partly refunded, the remaining amount added to the partner balance with its ledger entry), in
 * one statement. Returns how many were credited.
 */
export async function creditCommissions(db: TempDatabase, f: LoadFixture): Promise<number> {
  await db.pool.query(
    `with c as (
       update commission set credited_at = now(), status = case when status = 'pending' then 'approved' else status end
        where program_id = $1 and credited_at is null and status <> 'reversed'
        returning id, partner_id, currency, amount_cents - reversed_cents as remaining),
     e as (
       insert into balance_entry (partner_id, currency, delta_cents, kind, commission_id, created_at)
       select partner_id, currency, remaining, 'commission_credit', id, now() from c where remaining > 0
       returning partner_id, currency, delta_cents)
     insert into partner_balance (partner_id, currency, balance_cents)
     select partner_id, currency, sum(delta_cents) from e group by partner_id, currency
     on conflict (partner_id, currency) do update set balance_cents = partner_balance.balance_cents + excluded.balance_cents
     returning 1`,
    [f.programId],
  );
  const {
    rows: [r],
  } = await db.pool.query(
    `select count(*)::int as n from commission where program_id = $1 and credited_at is not null`,
    [f.programId],
  );
  return r.n;
}

/** The raw-pg refund run: its rows, no duplicate refund id, and the program's refund invariants. */
export async function checkRefunds(db: TempDatabase, f: LoadFixture, prefix: string) {
  const {
    rows: [mine],
  } = await db.pool.query(
    `select count(*)::int as rows, count(distinct (r.sale_id, r.refund_id))::int as distinct_rows
       from refund r join sale s on s.id = r.sale_id where s.program_id = $1 and r.refund_id like $2`,
    [f.programId, `${prefix}%`],
  );
  const inv = await refundInvariants(db, f);
  return { ok: mine.rows === mine.distinct_rows && inv.ok, rows: mine.rows as number, refundedSales: inv };
}

/**
 * Cumulative invariants on every refunded sale of the program (all runs so far): refunded total,
 * reversal and status from the refunds' sums (no drift, no lost update); every partner balance is
 * the sum of its ledger; every refund's balance deduction has its ledger entry, and equals its
 * commission deduction when the commission was credited (all are, before the refund runs).
 */
export async function refundInvariants(db: TempDatabase, f: LoadFixture) {
  const {
    rows: [inv],
  } = await db.pool.query(
    `select count(*)::int as sales,
            count(*) filter (where s.refunded_cents <> rs.applied)::int as bad_refunded_total,
            count(*) filter (where c.reversed_cents <> rs.deducted)::int as bad_deduction_sum,
            count(*) filter (where c.reversed_cents <> case when s.refunded_cents >= s.amount_cents then c.amount_cents
                               else (2 * c.amount_cents * s.refunded_cents + s.amount_cents) / (2 * s.amount_cents) end)::int as bad_reversal,
            count(*) filter (where c.status <> case when s.refunded_cents >= s.amount_cents then 'reversed' else 'refunded' end)::int as bad_status
       from sale s join commission c on c.sale_id = s.id
       join (select sale_id, sum(applied_cents) as applied, sum(deduction_cents) as deducted from refund group by sale_id) rs on rs.sale_id = s.id
      where s.program_id = $1`,
    [f.programId],
  );
  const {
    rows: [money],
  } = await db.pool.query(
    `select
       (select count(*)::int from partner_balance pb
          left join (select partner_id, currency, sum(delta_cents) as total from balance_entry group by partner_id, currency) e
            using (partner_id, currency)
         where pb.balance_cents <> coalesce(e.total, 0)) as bad_balance,
       (select count(*)::int from refund r
          join sale s on s.id = r.sale_id
          join commission c on c.id = r.commission_id
          left join (select refund_id, -sum(delta_cents) as deducted from balance_entry where kind = 'refund_deduction' group by refund_id) e
            on e.refund_id = r.id
         where s.program_id = $1
           and (r.balance_deduction_cents <> coalesce(e.deducted, 0)
                or (c.credited_at is not null and r.balance_deduction_cents <> r.deduction_cents))) as bad_balance_deduction`,
    [f.programId],
  );
  const ok =
    inv.bad_refunded_total === 0 &&
    inv.bad_deduction_sum === 0 &&
    inv.bad_reversal === 0 &&
    inv.bad_status === 0 &&
    money.bad_balance === 0 &&
    money.bad_balance_deduction === 0;
  return { ok, ...inv, ...money };
}

/** Refunds enqueue partner notifications; let them drain so they do not load the next run. */
export async function waitForNotificationsDelivered(db: TempDatabase, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const {
      rows: [r],
    } = await db.pool.query(`select count(*)::int as n from notification where delivered_at is null`);
    if (r.n === 0) return;
    await sleep(250);
  }
}
