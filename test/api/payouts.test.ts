import { describe, expect, test } from 'vitest';
import { getPartnerStatement } from '../../src/core/ledger/get-partner-statement.ts';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

const h = useHarness();

/** A program with a 10% commission and one partner whose customer is `customer`. */
async function partnerWithCustomer(customer: string): Promise<Fixture> {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, hold_period_days: 30 });
  await clickAndLead(h, f, customer);
  return f;
}
let seq = 0;
async function creditedCommission(
  f: Fixture,
  customer: string,
  amountCents: number,
): Promise<{ transactionId: string; commissionId: number }> {
  const transactionId = `po-${++seq}`;
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: amountCents, customer_key: customer },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  await h.admin('POST', `/programs/${f.programId}/commissions/${r.body.commission_id}/approve`, {});
  return { transactionId, commissionId: r.body.commission_id };
}
const statement = (f: Fixture) => h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
const commissionsOf = async (f: Fixture) =>
  (await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).commissions as Array<Record<string, any>>;

/** The USD line of the statement equals `expected`, reconciles, and agrees with the ledger entry by entry. */
async function expectStatement(f: Fixture, expected: Record<string, number>) {
  const s = await statement(f);
  const usd = s.currencies.find((c: any) => c.currency === 'USD');
  expect(usd).toMatchObject({ ...expected, reconciles: true });
  expect(usd.credits_cents - usd.reversals_cents - usd.payouts_cents).toBe(usd.balance_cents);
  expect(usd.unpaid_commissions_cents - usd.owed_cents).toBe(usd.balance_cents);
  const ledger = s.ledger.filter((e: any) => e.currency === 'USD');
  expect(ledger.reduce((sum: number, e: any) => sum + e.delta_cents, 0)).toBe(usd.balance_cents);
  const payouts = s.payouts.filter((p: any) => p.status === 'paid');
  expect(payouts.reduce((sum: number, p: any) => sum + p.amount_cents, 0)).toBe(usd.payouts_cents);
  return s;
}

describe('one payout model', () => {
  test('credits → payout → partial refund of a paid commission → new commission → payout that nets the negative balance; reconciles at every step', async () => {
    const f = await partnerWithCustomer('walker');
    const a = await creditedCommission(f, 'walker', 10_000); // 1 000
    const b = await creditedCommission(f, 'walker', 20_000); // 2 000
    await expectStatement(f, {
      credits_cents: 3_000,
      reversals_cents: 0,
      payouts_cents: 0,
      balance_cents: 3_000,
      unpaid_commissions_cents: 3_000,
      owed_cents: 0,
    });

    // Payout 1: everything available; both commissions, oldest first, marked paid with its id.
    const open1 = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
    });
    expect(open1.payout).toMatchObject({ status: 'open', amount_cents: 3_000, requested_cents: null });
    await expectStatement(f, { balance_cents: 3_000, open_payouts_cents: 3_000 });
    const paid1 = await h.admin('POST', `/programs/${f.programId}/payouts/${open1.payout.id}/pay`, {});
    expect(paid1.payout).toMatchObject({
      status: 'paid',
      amount_cents: 3_000,
      commissions_cents: 3_000,
      netted_cents: 0,
      paid_at: expect.any(String),
    });
    expect(paid1.commissions.map((c: any) => c.id)).toEqual([a.commissionId, b.commissionId]);
    for (const c of (await commissionsOf(f)).filter((x) => [a.commissionId, b.commissionId].includes(x.id))) {
      expect(c).toMatchObject({ status: 'paid', payout: open1.payout.id, paid_at: expect.any(String) });
    }
    await expectStatement(f, {
      credits_cents: 3_000,
      reversals_cents: 0,
      payouts_cents: 3_000,
      balance_cents: 0,
      unpaid_commissions_cents: 0,
      owed_cents: 0,
      open_payouts_cents: 0,
    });

    // Partial refund of a paid commission: the advertiser is warned; the balance goes below zero.
    const sentBefore = h.sent.length;
    const r = await h.request('/api/v1/track/refund', {
      body: { transaction_id: b.transactionId, refund_amount_cents: 10_000, refund_id: 'half' },
      headers: bearer(f.liveKey),
    });
    expect(r.body).toEqual({
      success: true,
      status: 'refunded',
      deductionAmount: 1_000,
      commission_id: b.commissionId,
    });
    await waitFor(() => h.sent.slice(sentBefore).filter((n) => n.commissionId === b.commissionId).length === 2);
    const warning = h.sent.find((n) => n.commissionId === b.commissionId && n.kind === 'advertiser_manual_review');
    expect(warning?.payload).toMatchObject({
      payout_id: open1.payout.id,
      deduction_cents: 1_000,
      paid_at: expect.any(String),
    });
    await expectStatement(f, {
      credits_cents: 3_000,
      reversals_cents: 1_000,
      payouts_cents: 3_000,
      balance_cents: -1_000,
      unpaid_commissions_cents: 0,
      owed_cents: 1_000,
    });

    // Nothing can be paid while the balance is negative.
    const refused = await h.request(`/api/v1/admin/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      body: { currency: 'USD' },
      headers: { authorization: `Bearer ${adminToken()}` },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { available_cents: 0 } });

    // A new commission: credited 3 000, of which 1 000 is owed back.
    const c = await creditedCommission(f, 'walker', 30_000);
    await expectStatement(f, {
      credits_cents: 6_000,
      reversals_cents: 1_000,
      payouts_cents: 3_000,
      balance_cents: 2_000,
      unpaid_commissions_cents: 3_000,
      owed_cents: 1_000,
    });

    // Payout 2 pays the new commission whole and nets the negative balance: the partner gets 2 000.
    const open2 = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
    });
    expect(open2.payout.amount_cents).toBe(2_000);
    const paid2 = await h.admin('POST', `/programs/${f.programId}/payouts/${open2.payout.id}/pay`, {});
    expect(paid2.payout).toMatchObject({
      status: 'paid',
      amount_cents: 2_000,
      commissions_cents: 3_000,
      netted_cents: 1_000,
    });
    expect(paid2.commissions.map((x: any) => [x.id, x.payout])).toEqual([[c.commissionId, open2.payout.id]]);
    const final = await expectStatement(f, {
      credits_cents: 6_000,
      reversals_cents: 1_000,
      payouts_cents: 5_000,
      balance_cents: 0,
      unpaid_commissions_cents: 0,
      owed_cents: 0,
    });
    expect(final.ledger.map((e: any) => [e.kind, e.delta_cents]).reverse()).toEqual([
      ['commission_credit', 1_000],
      ['commission_credit', 2_000],
      ['payout', -3_000],
      ['refund_deduction', -1_000],
      ['commission_credit', 3_000],
      ['payout', -2_000],
    ]);
    const shown = await h.admin('GET', `/programs/${f.programId}/payouts/${open2.payout.id}`);
    expect(shown).toMatchObject({
      payout: { id: open2.payout.id, status: 'paid' },
      commissions: [{ id: c.commissionId }],
    });
    const listed = await h.admin('GET', `/programs/${f.programId}/payouts?partner_id=${f.partnerId}&status=paid`);
    expect(listed.payouts.map((p: any) => p.id)).toEqual([open2.payout.id, open1.payout.id]);
  });

  test('a capped payout pays whole commissions, oldest first, within its amount', async () => {
    const f = await partnerWithCustomer('capped');
    const a = await creditedCommission(f, 'capped', 10_000); // 1 000
    await creditedCommission(f, 'capped', 20_000); // 2 000
    const open = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
      amount_cents: 2_500,
    });
    expect(open.payout).toMatchObject({ amount_cents: 2_500, requested_cents: 2_500 });
    const paid = await h.admin('POST', `/programs/${f.programId}/payouts/${open.payout.id}/pay`, {});
    expect(paid.payout).toMatchObject({ amount_cents: 1_000, requested_cents: 2_500 });
    expect(paid.commissions.map((x: any) => x.id)).toEqual([a.commissionId]);
    await expectStatement(f, {
      credits_cents: 3_000,
      payouts_cents: 1_000,
      balance_cents: 2_000,
      unpaid_commissions_cents: 2_000,
      owed_cents: 0,
    });
  });

  test('commissions:pay pays that commission through a payout; pending, paid and unknown ones are refused; a paid or cancelled payout cannot be paid again', async () => {
    const f = await partnerWithCustomer('chooser');
    await creditedCommission(f, 'chooser', 10_000);
    const b = await creditedCommission(f, 'chooser', 50_000); // 5 000, the younger one
    const paid = await h.admin('POST', `/programs/${f.programId}/commissions/${b.commissionId}/pay`, {});
    expect(paid.payout).toMatchObject({ status: 'paid', amount_cents: 5_000, commissions_cents: 5_000 });
    expect(paid.commissions.map((x: any) => x.id)).toEqual([b.commissionId]);
    await expectStatement(f, { credits_cents: 6_000, payouts_cents: 5_000, balance_cents: 1_000 });

    const adminReq = (method: string, path: string, body: unknown = {}) =>
      h.request(`/api/v1/admin/programs/${f.programId}${path}`, {
        method,
        body,
        headers: { authorization: `Bearer ${adminToken()}` },
      });
    expect((await adminReq('POST', `/commissions/${b.commissionId}/pay`)).status).toBe(400);
    const pending = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `po-pending-${seq}`, amount_cents: 1_000, customer_key: 'chooser' },
      headers: bearer(f.liveKey),
    });
    expect((await adminReq('POST', `/commissions/${pending.body.commission_id}/pay`)).status).toBe(400);
    expect((await adminReq('POST', '/commissions/999999/pay')).status).toBe(404);
    expect((await adminReq('POST', `/payouts/${paid.payout.id}/pay`)).status).toBe(400);
    const open = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, { currency: 'USD' });
    expect((await h.admin('POST', `/programs/${f.programId}/payouts/${open.payout.id}/cancel`, {})).payout.status).toBe(
      'cancelled',
    );
    expect((await adminReq('POST', `/payouts/${open.payout.id}/pay`)).status).toBe(400);
    expect((await adminReq('POST', '/payouts/999999/pay')).status).toBe(404);
    await expectStatement(f, { balance_cents: 1_000, open_payouts_cents: 0 });
  });
});

function adminToken(): string {
  return h.ctx.config.ADMIN_TOKEN as string;
}

async function waitFor(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('money beyond 2^53 cents', () => {
  const MAX = Number.MAX_SAFE_INTEGER;
  /** The partner's balance row and the sum of its ledger, as exact decimal strings from PostgreSQL. */
  async function balanceAndLedger(f: Fixture): Promise<{ balance: string; ledger: string }> {
    const [row] = await h.ctx.db.em.fork().execute<Array<{ balance: string; ledger: string }>>(
      `select (select balance_cents::text from partner_balance where partner_id = ? and currency = 'USD') as balance,
              (select sum(delta_cents)::text from balance_entry where partner_id = ? and currency = 'USD') as ledger`,
      [f.partnerId, f.partnerId],
    );
    return row!;
  }

  test('two credited commissions near Number.MAX_SAFE_INTEGER: the balance is exactly the ledger, the statement reconciles, payouts stay exact', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 10_000, hold_period_days: 30 });
    await clickAndLead(h, f, 'whale');
    await creditedCommission(f, 'whale', MAX - 2);
    await creditedCommission(f, 'whale', MAX - 3);
    // 18014398509481976 cents; in JS numbers MAX - 2 + MAX - 3 is off (doubles step by 2 or 4 past 2^53).
    const total = 2n * BigInt(MAX) - 5n;
    expect(await balanceAndLedger(f)).toEqual({ balance: total.toString(), ledger: total.toString() });

    // The statement sums in SQL and writes totals past 2^53 as exact JSON integers.
    const s = await getPartnerStatement(h.ctx.deps(), f.programId, f.partnerId);
    const usd = s.currencies.find((c) => c.currency === 'USD')!;
    expect(usd.reconciles).toBe(true);
    expect(JSON.stringify({ b: usd.balanceCents, c: usd.creditsCents, u: usd.unpaidCommissionsCents })).toBe(
      `{"b":${total},"c":${total},"u":${total}}`,
    );

    // A payout is at most 2^53 - 1 cents: the first pays the older commission, the second the rest.
    const open = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, { currency: 'USD' });
    expect(open.payout.amount_cents).toBe(MAX);
    const paid = await h.admin('POST', `/programs/${f.programId}/payouts/${open.payout.id}/pay`, {});
    expect(paid.payout).toMatchObject({ status: 'paid', amount_cents: MAX - 2, commissions_cents: MAX - 2 });
    expect(await balanceAndLedger(f)).toEqual({ balance: String(MAX - 3), ledger: String(MAX - 3) });
    const second = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
    });
    const paid2 = await h.admin('POST', `/programs/${f.programId}/payouts/${second.payout.id}/pay`, {});
    expect(paid2.payout).toMatchObject({ status: 'paid', amount_cents: MAX - 3 });
    expect(await balanceAndLedger(f)).toEqual({ balance: '0', ledger: '0' });
  });
});
