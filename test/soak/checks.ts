/**
 * What must hold once the load stopped and the service caught up: nothing pending (queues, inbox,
 * parked refunds, outboxes), every acknowledged sale, refund and event applied exactly once (lost:
 * not applied; doubled: applied more than once or for more than was sent), the ledger invariants,
 * and `ledger:verify` clean for the program.
 */
import { ledgerViolations, type FaultEnv } from '../faults/fault-env.ts';
import { runToExit } from '../helpers/run-process.ts';
import type { WorkPlace } from '../helpers/pending-work.ts';
import type { Expected } from './traffic.ts';

/** Where the soak's work waits (its queue prefix on its own Redis, its database). */
export const workPlace = (env: FaultEnv): WorkPlace => {
  const u = new URL(env.redisUrl);
  return { prefix: env.prefix, redis: async () => ({ host: u.hostname, port: Number(u.port) }), pool: env.db.pool };
};

export type Outcome = {
  acknowledged: number;
  unacknowledged: number;
  lost: string[];
  doubled: string[];
  /** Inbox rows of our events that did not end `processed`, by status. */
  unprocessed: Record<string, number>;
  violations: Record<string, number>;
};

/** Compares what was acknowledged with what the database holds. */
export async function outcome(env: FaultEnv, x: Expected): Promise<Outcome> {
  const q = async (sql: string) => (await env.db.pool.query(sql, [env.fixture.programId])).rows;
  const lost: string[] = [];
  const doubled: string[] = [];
  const sales = new Map<string, { n: number; refunded: number }>(
    (
      await q(`select transaction_id as k, count(*)::int as n, sum(refunded_cents)::bigint as refunded
                 from sale where program_id = $1 group by 1`)
    ).map((r) => [r.k, { n: r.n, refunded: Number(r.refunded) }]),
  );
  const refunds = new Map<string, number>(
    (
      await q(`select refund_id as k, count(*)::int as n from refund
                 where program_id = $1 and refund_id is not null group by 1`)
    ).map((r) => [r.k, r.n]),
  );
  const events = new Map<string, Record<string, number>>();
  for (const r of await q(`select dedupe_key as k, status, count(*)::int as n from webhook_event
                            where program_id = $1 group by 1, 2`))
    events.set(r.k, { ...events.get(r.k), [r.status]: r.n });

  let acknowledged = 0;
  let unacknowledged = 0;
  /** `derived`: the effect of an item counted already (a checkout's sale, a refund event's refund). */
  const once = (what: string, n: number | undefined, acked: boolean, derived = false) => {
    if (!derived && acked) acknowledged++;
    if (!derived && !acked) unacknowledged++;
    if (acked && !n) lost.push(what);
    if ((n ?? 0) > 1) doubled.push(what);
  };
  // Refunded amounts per sale: at least every acknowledged refund, at most every one sent.
  const refundedBounds = new Map<string, [number, number]>();
  const bound = (tx: string, amount: number, acked: boolean) => {
    const [lo, hi] = refundedBounds.get(tx) ?? [0, 0];
    refundedBounds.set(tx, [lo + (acked ? amount : 0), hi + amount]);
  };
  for (const [tx, s] of x.sales) once(`sale ${tx}`, sales.get(tx)?.n, s.acked);
  for (const [id, r] of x.refunds) {
    once(`refund ${id}`, refunds.get(id), r.acked);
    bound(r.tx, r.amount, r.acked);
  }
  const unprocessed: Record<string, number> = {};
  for (const [id, e] of x.events) {
    const rows = events.get(id) ?? {};
    const n = Object.values(rows).reduce((a, b) => a + b, 0);
    once(`event ${id}`, n, e.acked);
    for (const [status, k] of Object.entries(rows))
      if (status !== 'processed') unprocessed[status] = (unprocessed[status] ?? 0) + k;
    if (e.kind === 'checkout') once(`sale ${e.tx} (from ${id})`, sales.get(e.tx)?.n, e.acked, true);
    else {
      once(`refund ${e.refundId} (from ${id})`, refunds.get(e.refundId!), e.acked, true);
      bound(e.tx, e.amount, e.acked);
    }
  }
  for (const [tx, [lo, hi]] of refundedBounds) {
    const got = sales.get(tx)?.refunded ?? 0;
    if (got < lo && sales.has(tx)) lost.push(`refunded amount of ${tx}: ${got} < ${lo}`);
    if (got > hi) doubled.push(`refunded amount of ${tx}: ${got} > ${hi}`);
  }
  // Nothing recorded that was never sent.
  const sent = new Set([...x.sales.keys(), ...[...x.events.values()].map((e) => e.tx)]);
  for (const tx of sales.keys()) if (!sent.has(tx)) doubled.push(`unknown sale ${tx}`);
  return { acknowledged, unacknowledged, lost, doubled, unprocessed, violations: await ledgerViolations(env.db) };
}

/** `npm run admin -- ledger:verify PROGRAM` against the running service: exit code and last line. */
export async function ledgerVerify(env: FaultEnv): Promise<{ code: number | string; line: string }> {
  const r = await runToExit(
    process.execPath,
    ['src/cli/admin.ts', 'ledger:verify', String(env.fixture.programId)],
    { ADMIN_URL: env.http.url, ADMIN_TOKEN: env.adminToken },
    300_000,
  );
  const line = r.output.trim().split('\n').filter(Boolean).at(-1) ?? '';
  return { code: r.code, line };
}
