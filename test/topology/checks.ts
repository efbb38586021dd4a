/**
 * What must hold once the load has stopped and the processes have caught up: nothing pending
 * (queues on the current Redis primary, the webhook inbox, parked refunds, the event and email
 * outboxes), every acknowledged item applied exactly once, the ledger invariants, and every
 * partner's balance equal to its statement.
 */
import { ledgerViolations } from '../faults/fault-env.ts';
import { adminCall } from '../helpers/load-fixture.ts';
import type { Ledger } from './load.ts';
import type { Topology } from './topology.ts';
import type { WorkPlace } from '../helpers/pending-work.ts';

/** Where the topology's work waits: the queue prefix on the current Redis primary, the database. */
export const workPlace = (t: Topology): WorkPlace => ({
  prefix: t.prefix,
  redis: async () => ({ host: '127.0.0.1', port: await t.redis.currentPrimaryPort() }),
  pool: t.db.pool,
});

export type Violations = Record<string, string[] | number>;

/** Every breach of exactly-once or of the ledger; empty when all holds. */
export async function exactlyOnceViolations(t: Topology, l: Ledger): Promise<Violations> {
  const q = async (sql: string, args: unknown[] = []) => (await t.db.pool.query(sql, args)).rows;
  const out: Violations = {};
  const note = (what: string, ids: string[]) => {
    if (ids.length) out[what] = ids.slice(0, 10);
  };
  const countBy = (rows: Array<{ k: string; n: number }>) => new Map(rows.map((r) => [r.k, r.n]));
  // Webhook events: one processed inbox row per acknowledged delivery, none for an unknown one.
  const events = countBy(
    await q(
      `select dedupe_key as k, count(*)::int as n from webhook_event
        where program_id = $1 and dedupe_key like 'evt_tp%' and status = 'processed' group by 1`,
      [t.fixture.programId],
    ),
  );
  const sentEvents = [...l.checkouts.entries(), ...l.stripeRefunds.entries()];
  note(
    'acked_event_not_processed_once',
    sentEvents.filter(([k, v]) => v.acked && events.get(k) !== 1).map(([k]) => k),
  );
  const sent = new Set(sentEvents.map(([k]) => k));
  note(
    'unknown_or_doubled_events',
    [...events].filter(([k, n]) => !sent.has(k) || n > 1).map(([k]) => k),
  );
  // Sales by transaction id, from checkouts and from the API.
  const sales = countBy(
    await q(`select transaction_id as k, count(*)::int as n from sale where program_id = $1 group by 1`, [
      t.fixture.programId,
    ]),
  );
  note(
    'acked_checkout_sale_not_once',
    [...l.checkouts.values()].filter((c) => c.acked && sales.get(c.pi) !== 1).map((c) => c.pi),
  );
  note(
    'acked_api_sale_not_once',
    [...l.apiSales].filter(([k, v]) => v.acked && sales.get(k) !== 1).map(([k]) => k),
  );
  // Refunds by refund id, from Stripe and from the API.
  const refunds = countBy(
    await q(`select refund_id as k, count(*)::int as n from refund where program_id = $1 group by 1`, [
      t.fixture.programId,
    ]),
  );
  note(
    'acked_stripe_refund_not_once',
    [...l.stripeRefunds.values()].filter((r) => r.acked && refunds.get(r.refundId) !== 1).map((r) => r.refundId),
  );
  note(
    'acked_api_refund_not_once',
    [...l.apiRefunds].filter(([k, v]) => v.acked && refunds.get(k) !== 1).map(([k]) => k),
  );
  note(
    'doubled_refunds',
    [...refunds].filter(([, n]) => n > 1).map(([k]) => k),
  );
  for (const [k, v] of Object.entries(await ledgerViolations(t.db))) out[k] = v;
  return out;
}

/** Partners whose statement (through HAProxy) disagrees with the ledger rows or does not reconcile. */
export async function statementMismatches(t: Topology): Promise<string[]> {
  const { rows } = await t.db.pool.query<{ id: number; currency: string; stored: string; entries: string }>(
    `select p.id, b.currency, b.balance_cents::text as stored,
            coalesce((select sum(e.delta_cents) from balance_entry e
                       where e.partner_id = p.id and e.currency = b.currency), 0)::text as entries
       from partner p join partner_balance b on b.partner_id = p.id where p.program_id = $1`,
    [t.fixture.programId],
  );
  const { rows: partners } = await t.db.pool.query<{ id: number }>(`select id from partner where program_id = $1`, [
    t.fixture.programId,
  ]);
  const bad: string[] = [];
  for (const { id } of partners) {
    const s = await adminCall(
      t.haproxy.url,
      t.adminToken,
      'GET',
      `/programs/${t.fixture.programId}/partners/${id}/statement`,
    );
    for (const c of s.currencies as Array<{ currency: string; balance_cents: number; reconciles: boolean }>) {
      const row = rows.find((r) => r.id === id && r.currency === c.currency);
      if (!c.reconciles || !row || Number(row.stored) !== c.balance_cents || Number(row.entries) !== c.balance_cents)
        bad.push(
          `partner ${id} ${c.currency}: statement ${c.balance_cents}, stored ${row?.stored}, entries ${row?.entries}`,
        );
    }
    for (const r of rows.filter((x) => x.id === id))
      if (!s.currencies.some((c: { currency: string }) => c.currency === r.currency) && Number(r.stored) !== 0)
        bad.push(`partner ${id} ${r.currency}: balance ${r.stored} missing from the statement`);
  }
  return bad;
}
