/** Signed Stripe checkout webhooks: the acknowledgement rate and the time until all are processed. */
import { signedStripeCheckout } from '../../test/helpers/load-fixture.ts';
import { ACK_ONLY, LEVELS, amountOf, sleep, type BenchContext, type Run, runOf, type CaseRun } from '../config.ts';
import { stopCounting } from '../callgrind.ts';
import {
  cannon,
  cpuTimes,
  ledger,
  numbered,
  perInstruction,
  perRequest,
  record,
  rowOf,
  rssKiB,
  sampler,
} from '../measure.ts';
import { checkSales } from './sale.ts';

export async function runWebhooks(ctx: BenchContext): Promise<void> {
  for (const c of LEVELS) for (const r of await webhookCase(runOf(ctx, c, `wh${c}x`))) record(ctx, r);
}

/**
 * Signed Stripe checkouts: the acknowledgement rate (HTTP), then the time until every accepted
 * event is processed into a sale (drain). Returns the two rows.
 */
export async function webhookCase({ svc, db, f, c, seconds, prefix }: CaseRun): Promise<Run[]> {
  const l = ledger();
  const bad = sampler();
  const t0 = performance.now();
  const cpu0 = cpuTimes(svc);
  const k = await cannon(
    svc,
    c,
    seconds,
    numbered(l, bad, {
      path: `/api/v1/webhooks/stripe/${f.programId}`,
      build: (i) =>
        signedStripeCheckout(f, {
          eventId: `evt_${prefix}${i}`,
          paymentIntent: `pi_${prefix}${i}`,
          amountCents: amountOf(i),
          customerKey: f.customerKey(i % f.customers),
        }),
      // A redelivery would be answered 200 too: only a new event counts.
      accept: (status, text) => status === 200 && JSON.parse(text).duplicate === false,
    }),
    { keepCounting: !ACK_ONLY },
  );
  const tAck = performance.now();
  if (ACK_ONLY) {
    // Nothing processes them: the inbox must hold exactly one (pending) row per accepted event.
    const { rows } = await db.pool.query<{ dedupe_key: string }>(
      `select dedupe_key from webhook_event where program_id = $1 and dedupe_key like $2`,
      [f.programId, `evt_${prefix}%`],
    );
    const inbox = l.compare(rows.map((e) => Number(e.dedupe_key.slice(`evt_${prefix}`.length))));
    const ok = inbox.missing === 0 && inbox.unexpected === 0 && inbox.duplicates === 0;
    return [
      {
        ...rowOf('webhook ack', c, k),
        consistent: ok,
        note: 'alone: no worker, drain not measured',
        extra: { check: { ok, inbox }, sent: l.built, statusCodes: k.res.statusCodeStats, unexpected: bad.samples },
      },
    ];
  }
  let peak = k.peakRssMiB ?? 0;
  const deadline = Date.now() + 180_000;
  let pending = -1;
  while (Date.now() < deadline) {
    const {
      rows: [r],
    } = await db.pool.query(`select count(*)::int as n from webhook_event where status = 'pending'`);
    peak = Math.max(peak, Math.round(rssKiB(svc) / 1024));
    pending = r.n;
    if (pending === 0) break;
    await sleep(100);
  }
  const tDone = performance.now();
  const cpu1 = cpuTimes(svc);
  const instructions = stopCounting(svc.pids);
  const drainSeconds = (tDone - t0) / 1000;
  const { rows: events } = await db.pool.query<{ dedupe_key: string; status: string }>(
    `select dedupe_key, status from webhook_event where program_id = $1 and dedupe_key like $2`,
    [f.programId, `evt_${prefix}%`],
  );
  const inbox = l.compare(events.map((e) => Number(e.dedupe_key.slice(`evt_${prefix}`.length))));
  const notProcessed = events.filter((e) => e.status !== 'processed').length;
  const sales = await checkSales(db, f, `pi_${prefix}`, l);
  const ok =
    inbox.missing === 0 && inbox.unexpected === 0 && notProcessed === 0 && sales.ok && sales.rows === events.length;
  const check = { ok, inbox, notProcessed, sales };
  const ack = {
    ...rowOf('webhook ack', c, k),
    consistent: ok,
    extra: { check, sent: l.built, statusCodes: k.res.statusCodeStats, unexpected: bad.samples },
  };
  const drain: Run = {
    case: 'webhook drained',
    concurrency: c,
    rps: events.length / drainSeconds,
    ratio: null,
    latency: { p50: NaN, p90: NaN, p99: NaN, max: Math.round(tDone - t0) },
    errors: pending === 0 ? 0 : pending,
    peakRssMiB: peak || null,
    consistent: ok,
    note: 'max = ms until all processed; CPU = acknowledging and processing, per event',
    // Service CPU from the first request until the inbox is drained, per event.
    cpu:
      cpu0 && cpu1
        ? {
            serviceMsPerRequest: perRequest(cpu1.user + cpu1.system - cpu0.user - cpu0.system, events.length),
            serviceSystemMsPerRequest: perRequest(cpu1.system - cpu0.system, events.length),
            hostBusyPct: NaN,
            cores: {},
            instructionsPerRequest: perInstruction(instructions, events.length),
          }
        : undefined,
    extra: {
      processed: events.length - notProcessed,
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      lagAfterLastAckSeconds: Math.round((tDone - tAck) / 10) / 100,
    },
  };
  return [ack, drain];
}
