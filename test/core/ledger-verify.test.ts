/**
 * ledger:verify (reporting/verify-ledger.ts): a program with sales under first-sale, sale and tier
 * rules, partial and full refunds, a lost dispute, a held commission released and one rejected,
 * and a payout rebuilds to exactly its stored ledger; each corruption made with direct SQL (a
 * commission's amount, a reversed amount, a refund's deduction, a posting's amount, a partner
 * balance, a deleted posting) is found and named by table and row. The admin CLI's exit codes.
 * The postings are read through their indexes. Both modes.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, type Fixture } from '../helpers/harness.ts';
import { published } from '../providers/fixtures/published.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { keysOf, newRef } from '../webhooks/scenario-steps.ts';
import { useWebhookHarness } from '../webhooks/webhook-harness.ts';

const w = useWebhookHarness(stripeKit);
const h = w.h;
type Row = Record<string, any>;
let f: Fixture;
let url = '';
/** Commission ids by what happened to them. */
const c = {} as Record<'first' | 'partial' | 'full' | 'tier' | 'disputed' | 'released' | 'rejected', number>;

const sql = async (q: string, params: unknown[] = []): Promise<Row[]> => h.ctx.deps().em.fork().execute(q, params);
const verify = () => h.admin('POST', `/programs/${f.programId}/ledger/verify`, {});
const admin = (path: string) => h.admin('POST', `/programs/${f.programId}${path}`, {});

async function sale(customerKey: string, amount: number, transactionId = newRef('tx')): Promise<number> {
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: amount, currency: 'USD', customer_key: customerKey },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  return r.body.commission_id;
}

async function refund(commissionId: number, amount?: number): Promise<void> {
  const [row] = await sql(`select s.transaction_id from commission c join sale s on s.id = c.sale_id where c.id = ?`, [
    commissionId,
  ]);
  const r = await h.request('/api/v1/track/refund', {
    body: {
      transaction_id: row!.transaction_id,
      ...(amount ? { refund_amount_cents: amount, refund_id: newRef('re') } : {}),
    },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
}

async function deliver(body: object): Promise<void> {
  const res = await w.send(f.programId, body);
  expect(res.status).toBe(200);
  await w.waitForInbox(f.programId, res.body.id, 'processed');
}

beforeAll(async () => {
  url = await h.listen();
  f = await w.newProgram({
    reward_rules: {
      first_sale: { type: 'flat', amounts: { USD: 700 } },
      sale: { type: 'percent', bps: 1000 },
      tiers: {
        metric: 'sales',
        period: 'calendar_month',
        steps: [{ from: 4, reward: { type: 'percent', bps: 2000 } }],
      },
    },
  });
  await clickAndLead(h, f, 'repeat');
  h.clock.advanceDays(1);
  c.first = await sale('repeat', 10_000); // first sale: flat 700
  c.partial = await sale('repeat', 20_000); // 10 %: 2 000
  c.full = await sale('repeat', 30_000); // 10 %: 3 000
  c.tier = await sale('repeat', 12_345); // 4th sale this month: 20 %, 2 469
  await refund(c.partial, 5_000); // before it is credited: nothing off the balance
  for (const id of [c.first, c.partial, c.full, c.tier]) await admin(`/commissions/${id}/approve`);
  await refund(c.partial, 3_333); // credited: off the balance
  await refund(c.full); // the rest: reversed whole
  // A Stripe sale, credited, then lost as a dispute.
  const ref = newRef('st');
  const customer = await w.newCustomer(f);
  const payment = stripeKit.payment({ ref, amountCents: 8_000, keys: keysOf(f, customer) });
  await deliver(payment.event);
  const [disputed] = await sql(
    `select c.id from commission c join sale s on s.id = c.sale_id where s.transaction_id = ?`,
    [payment.transactionId],
  );
  c.disputed = disputed!.id;
  await admin(`/commissions/${c.disputed}/approve`);
  await deliver(
    published('stripe', 'event', {
      id: `evt_${newRef('e')}`,
      type: 'charge.dispute.funds_withdrawn',
      livemode: true,
      api_version: '2025-03-31.basil',
      data: {
        object: {
          ...published('stripe', 'dispute', {
            id: `dp_${ref}`,
            charge: `ch_${ref}`,
            payment_intent: `pi_${ref}`,
            amount: 8_000,
            status: 'needs_response',
          }),
          livemode: true,
        },
      },
    }),
  );
  // Fraud rules hold sales made right after their click: one released, one rejected.
  await h.admin('PATCH', `/programs/${f.programId}`, { fraud_rules: { fast_conversion_seconds: 3600 } });
  await clickAndLead(h, f, 'fast-1');
  c.released = await sale('fast-1', 40_000);
  await clickAndLead(h, f, 'fast-2');
  c.rejected = await sale('fast-2', 50_000);
  await admin(`/commissions/${c.released}/release`);
  await admin(`/commissions/${c.rejected}/reject`);
  // A payout of everything payable.
  const opened = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, { currency: 'USD' });
  await admin(`/payouts/${opened.payout.id}/pay`);
}, 120_000);

describe('a clean ledger', () => {
  test('rebuilds to the stored one: every commission, refund, posting and balance read', async () => {
    const [held] = await sql(`select status, reversed_cents::text as r from commission where id = ?`, [c.rejected]);
    expect(held).toMatchObject({ status: 'reversed' });
    const [tier] = await sql(`select amount_cents::text as a, reward from commission where id = ?`, [c.tier]);
    expect(tier!.a).toBe('2469');
    const v = await verify();
    expect(v.first_differences).toEqual([]);
    expect(v).toMatchObject({ program_id: f.programId, clean: true, differences: 0, partners: 1 });
    // 7 commissions, 4 refunds, their postings, a payout, the balance.
    expect(v.rows).toBeGreaterThan(20);
    const last = await h.admin('GET', `/programs/${f.programId}/ledger/verification`);
    expect(last.verification).toMatchObject({ clean: true, differences: 0, first_difference: null });
  });

  test("reads a commission's and a payout's postings through their partial indexes", async () => {
    const plan = await h.ctx
      .deps()
      .em.fork()
      .transactional(async (em) => {
        // A table this small is read whole unless that is ruled out: the index must then be usable.
        await em.execute('set local enable_seqscan = off');
        const ids = `(${Number(c.partial)}, ${Number(c.full)})`;
        const byCommission = await em.execute(`explain select id from balance_entry where commission_id in ${ids}`);
        const byPayout = await em.execute(`explain select id from balance_entry where payout_id in ${ids}`);
        return [...byCommission, ...byPayout].map((r: Row) => r['QUERY PLAN']).join('\n');
      });
    expect(plan).toMatch(/balance_entry_commission_id_index/);
    expect(plan).toMatch(/balance_entry_payout_id_index/);
  });
});

/** Corrupts with `change`, expects the first difference of the partner to name `table` `rowId`, restores. */
async function expectFound(
  change: string,
  restore: string,
  params: unknown[],
  want: { table: string; row_id: number | null; field?: string; message: RegExp },
): Promise<Row> {
  await sql(change, params);
  try {
    const v = await verify();
    expect(v.clean).toBe(false);
    const first = v.first_differences.find((d: Row) => d.partner_id === f.partnerId);
    expect(first).toMatchObject({
      table: want.table,
      row_id: want.row_id,
      ...(want.field ? { field: want.field } : {}),
    });
    expect(first.message).toMatch(want.message);
    return first;
  } finally {
    await sql(restore, params);
  }
}

describe('a corrupted row is named', () => {
  test("a commission's amount", async () => {
    const d = await expectFound(
      `update commission set amount_cents = amount_cents + 1 where id = ?`,
      `update commission set amount_cents = amount_cents - 1 where id = ?`,
      [c.tier],
      { table: 'commission', row_id: c.tier, field: 'amount_cents', message: /should be 2469 .*stored 2470/ },
    );
    expect([d.expected, d.stored]).toEqual(['2469', '2470']);
  });

  test("a commission's reversed amount", async () => {
    await expectFound(
      `update commission set reversed_cents = reversed_cents + 7 where id = ?`,
      `update commission set reversed_cents = reversed_cents - 7 where id = ?`,
      [c.partial],
      { table: 'commission', row_id: c.partial, field: 'reversed_cents', message: /reversed_cents should be/ },
    );
  });

  test("a refund's deduction", async () => {
    const [r] = await sql(`select id from refund where commission_id = ? order by id desc limit 1`, [c.partial]);
    await expectFound(
      `update refund set deduction_cents = deduction_cents + 1 where id = ?`,
      `update refund set deduction_cents = deduction_cents - 1 where id = ?`,
      [r!.id],
      { table: 'refund', row_id: r!.id, field: 'deduction_cents', message: /refund \d+: deduction_cents should be/ },
    );
  });

  test("a posting's amount", async () => {
    const [e] = await sql(`select id from balance_entry where commission_id = ? and kind = 'commission_credit'`, [
      c.tier,
    ]);
    await expectFound(
      `update balance_entry set delta_cents = delta_cents - 1 where id = ?`,
      `update balance_entry set delta_cents = delta_cents + 1 where id = ?`,
      [e!.id],
      { table: 'balance_entry', row_id: e!.id, field: 'delta_cents', message: /should be 2469 .*stored 2468/ },
    );
  });

  test("a partner's balance", async () => {
    const [b] = await sql(`select id from partner_balance where partner_id = ? and currency = 'USD'`, [f.partnerId]);
    await expectFound(
      `update partner_balance set balance_cents = balance_cents + 100 where id = ?`,
      `update partner_balance set balance_cents = balance_cents - 100 where id = ?`,
      [b!.id],
      { table: 'partner_balance', row_id: b!.id, message: /partner_balance \d+: balance_cents \(USD\) should be/ },
    );
  });

  test('a deleted posting', async () => {
    const [e] = await sql(
      `select id, partner_id, currency, delta_cents::text as delta, kind, commission_id, created_at from balance_entry where commission_id = ? and kind = 'commission_credit'`,
      [c.first],
    );
    await sql(`delete from balance_entry where id = ?`, [e!.id]);
    try {
      const v = await verify();
      const first = v.first_differences.find((d: Row) => d.partner_id === f.partnerId);
      expect(first).toMatchObject({ table: 'balance_entry', row_id: null, expected: '700', stored: 'none' });
      expect(first.message).toMatch(
        new RegExp(`missing: a commission_credit posting of 700 USD for commission ${c.first}\\b`),
      );
      expect(v.differences).toBeGreaterThan(1); // the balance no longer adds up either
    } finally {
      await sql(
        `insert into balance_entry (id, partner_id, currency, delta_cents, kind, commission_id, created_at) values (?, ?, ?, ?, ?, ?, ?)`,
        [e!.id, e!.partner_id, e!.currency, e!.delta, e!.kind, e!.commission_id, e!.created_at],
      );
    }
    expect((await verify()).clean).toBe(true);
  });
});

describe('the admin CLI', () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['src/cli/admin.ts', 'ledger:verify', ...args, '--url', url], {
      env: { ...process.env, ADMIN_TOKEN },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );

  test('exit 0 clean, 1 with the differences in plain words, 2 on an error', async () => {
    const clean = await cli(String(f.programId));
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^CLEAN: program \d+: 1 partners/);
    await sql(`update commission set amount_cents = amount_cents + 1 where id = ?`, [c.tier]);
    try {
      const bad = await cli(String(f.programId));
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain(`partner ${f.partnerId}: commission ${c.tier}: amount_cents should be 2469`);
      const json = await cli(String(f.programId), '--json');
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ clean: false, first_differences: [{ row_id: c.tier }] });
    } finally {
      await sql(`update commission set amount_cents = amount_cents - 1 where id = ?`, [c.tier]);
    }
    expect((await cli('999999')).code).toBe(2);
  });
});
