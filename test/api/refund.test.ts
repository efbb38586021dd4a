import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const h = useHarness();
let f: Fixture;
let seq = 0;
const refund = (body: Record<string, unknown>, key = f.liveKey) =>
  h.request('/api/v1/track/refund', { body, headers: bearer(key) });
/** A sale of `amount` with a 10% commission; returns ids. */
async function newSale(amount = 10_000, extra: Record<string, unknown> = {}) {
  const transaction_id = `rtx-${++seq}`;
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id, amount_cents: amount, customer_key: 'alice', ...extra },
    headers: bearer(f.liveKey),
  });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { transaction_id, saleId: r.body.sale_id as number, commissionId: r.body.commission_id as number | null };
}
const commission = async (id: number) =>
  (await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).commissions.find((c: any) => c.id === id);
const account = () => h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`);
const usd = async () => (await account()).balances.find((b: any) => b.currency === 'USD')?.balance_cents ?? 0;
/** Waits until `n` notifications were sent; throws on timeout (an assertion must never pass without waiting). */
const waitForSent = (n: number) => waitFor(() => h.sent.length >= n);

beforeAll(async () => {
  f = await createProgramFixture(h, { commission_rate_bps: 1000, recurring_policy: 'one_time' });
  await clickAndLead(h, f, 'alice');
});

describe('POST /api/v1/track/refund: states and transitions', () => {
  test('partial refund below the sale amount → refunded, commission reduced in proportion', async () => {
    const s = await newSale(10_000);
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 2_500, refund_id: 'a' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, status: 'refunded', deductionAmount: 250, commission_id: s.commissionId });
    expect(await commission(s.commissionId!)).toMatchObject({
      status: 'refunded',
      reversed_cents: 250,
      amount_cents: 1000,
    });
  });

  test('two partial refunds summing to half the sale reduce the commission by 50% in total', async () => {
    const s = await newSale(10_001);
    const a = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 2_000, refund_id: 'x1' });
    const b = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 3_000, refund_id: 'x2' });
    // commission round(1000.1) = 1000; cumulative 5000/10001 × 1000 = 499.95 → 500 in total.
    expect(a.body.deductionAmount + b.body.deductionAmount).toBe(500);
    expect(b.body.status).toBe('refunded');
  });

  test('cumulative refunds reaching the sale amount → reversed; the deductions sum exactly to the commission', async () => {
    const s = await newSale(999);
    const parts = [333, 333, 333];
    const out = [];
    for (const [i, p] of parts.entries())
      out.push((await refund({ transaction_id: s.transaction_id, refund_amount_cents: p, refund_id: `p${i}` })).body);
    expect(out.map((o) => o.status)).toEqual(['refunded', 'refunded', 'reversed']);
    expect(out.reduce((sum, o) => sum + o.deductionAmount, 0)).toBe(100); // commission of 999 at 10% = 99.9 → 100
  });

  test.each([
    ['omitted', undefined],
    ['0', 0],
  ])('amount %s refunds the rest → reversed', async (_l, amount) => {
    const s = await newSale(5_000);
    await refund({ transaction_id: s.transaction_id, refund_amount_cents: 1_000, refund_id: 'first' });
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: amount, refund_id: 'ignored-id' });
    expect(r.body).toEqual({ success: true, status: 'reversed', deductionAmount: 400, commission_id: s.commissionId });
  });

  test('a refund larger than what remains is capped at the sale amount', async () => {
    const s = await newSale(1_000);
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 5_000, refund_id: 'big' });
    expect(r.body).toMatchObject({ status: 'reversed', deductionAmount: 100 });
    const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
    expect(sales.find((x: any) => x.id === s.saleId).refunded_cents).toBe(1_000);
  });

  test('reversed commission: a further refund call is skipped with a reason', async () => {
    const s = await newSale(1_000);
    await refund({ transaction_id: s.transaction_id });
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 10, refund_id: 'late' });
    expect(r.body).toEqual({
      success: true,
      status: 'skipped',
      reason: expect.stringMatching(/already reversed/),
      commission_id: s.commissionId,
    });
  });

  test('same refund_id already applied → skipped, nothing changes', async () => {
    const s = await newSale(10_000);
    await refund({ transaction_id: s.transaction_id, refund_amount_cents: 1_000, refund_id: 'dup' });
    const before = await commission(s.commissionId!);
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 1_000, refund_id: 'dup' });
    expect(r.body).toEqual({
      success: true,
      status: 'skipped',
      reason: expect.stringMatching(/refund_id/),
      commission_id: s.commissionId,
    });
    expect(await commission(s.commissionId!)).toEqual(before);
  });

  test('no refund_id: the same amount again for the same sale is a retry → skipped; a distinct refund_id applies it', async () => {
    const s = await newSale(10_000);
    await refund({ transaction_id: s.transaction_id, refund_amount_cents: 700 });
    const retry = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 700 });
    expect(retry.body.status).toBe('skipped');
    const other = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 700, refund_id: 'distinct' });
    expect(other.body).toMatchObject({ status: 'refunded', deductionAmount: 70 });
    expect((await commission(s.commissionId!)).reversed_cents).toBe(140);
  });

  test('sale without a commission (outside the recurring policy) → no_commission', async () => {
    await newSale(1_000, { is_recurring: true, subscription_id: 'sub-1', sale_type: 'subscription' });
    const renewal = await newSale(1_000, { is_recurring: true, subscription_id: 'sub-1', sale_type: 'subscription' });
    expect(renewal.commissionId).toBeNull();
    const r = await refund({ transaction_id: renewal.transaction_id, refund_amount_cents: 500 });
    expect(r.body).toEqual({ success: true, status: 'no_commission', message: expect.any(String) });
  });

  test('refund_reason is recorded, else reason; both go into the partner notification', async () => {
    const s1 = await newSale(1_000);
    await refund({
      transaction_id: s1.transaction_id,
      refund_amount_cents: 100,
      refund_reason: 'customer changed mind',
      reason: 'chargeback',
    });
    expect((await commission(s1.commissionId!)).reason).toBe('customer changed mind');
    const s2 = await newSale(1_000);
    await refund({
      transaction_id: s2.transaction_id,
      refund_amount_cents: 100,
      refund_reason: '',
      reason: 'chargeback',
    });
    expect((await commission(s2.commissionId!)).reason).toBe('chargeback');
    const n = h.sent.length;
    await waitForSent(n);
    const { notifications } = await h.admin('GET', `/programs/${f.programId}/notifications?limit=500`);
    expect(
      notifications.find((x: any) => x.commission_id === s2.commissionId && x.kind === 'partner_commission_refunded')
        .payload.refund_reason,
    ).toBe('chargeback');
  });
});

describe('balance effects and notifications', () => {
  test('pending commission: refund does not touch the balance', async () => {
    const before = await usd();
    const s = await newSale(2_000);
    await refund({ transaction_id: s.transaction_id, refund_amount_cents: 1_000 });
    expect(await usd()).toBe(before);
  });

  test('credited commission: the proportional amount is deducted from the balance; the balance may go negative; open payouts shrink to fit', async () => {
    const s = await newSale(100_000); // commission 10 000
    await h.admin('POST', `/programs/${f.programId}/commissions/${s.commissionId}/approve`, {});
    const credited = await usd();
    const w = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
      amount_cents: credited,
    });
    const r = await refund({ transaction_id: s.transaction_id, refund_amount_cents: 40_000, refund_id: 'credited-1' });
    expect(r.body).toMatchObject({ status: 'refunded', deductionAmount: 4_000 });
    expect(await usd()).toBe(credited - 4_000);
    const acct = await account();
    const open = acct.payouts.find((x: any) => x.id === w.payout.id);
    expect(open).toMatchObject({ status: 'open', amount_cents: credited - 4_000, requested_cents: credited });
    expect(acct.ledger[0]).toMatchObject({
      kind: 'refund_deduction',
      delta_cents: -4_000,
      commission_id: s.commissionId,
    });
    // Paying the (reduced) payout pays the commission's remaining 6 000 (earlier tests left none
    // credited); refunding the rest then takes the balance below zero.
    const paid = await h.admin('POST', `/programs/${f.programId}/payouts/${w.payout.id}/pay`, {});
    expect(paid.payout).toMatchObject({
      status: 'paid',
      amount_cents: 6_000,
      commissions_cents: 6_000,
      netted_cents: 0,
    });
    expect(paid.commissions.map((c: any) => [c.id, c.payout])).toEqual([[s.commissionId, w.payout.id]]);
    const rest = await refund({ transaction_id: s.transaction_id });
    expect(rest.body).toMatchObject({ status: 'reversed', deductionAmount: 6_000 });
    expect(await usd()).toBe(-6_000);
  });

  test('partner gets an in-app notification; the advertiser a manual-review warning only when already paid out', async () => {
    // A partner of its own: the one above owes money back, which would absorb this payout.
    const g = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, g, 'notified');
    const sold = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'notify-1', amount_cents: 10_000, customer_key: 'notified' },
      headers: bearer(g.liveKey),
    });
    const s = { transaction_id: 'notify-1', commissionId: sold.body.commission_id as number };
    await h.admin('POST', `/programs/${g.programId}/commissions/${s.commissionId}/approve`, {});
    const paid = await h.admin('POST', `/programs/${g.programId}/commissions/${s.commissionId}/pay`, {});
    expect(paid.payout).toMatchObject({ status: 'paid', amount_cents: 1_000 });
    const n = h.sent.length;
    await refund({ transaction_id: s.transaction_id, refund_amount_cents: 1_000, refund_reason: 'damaged' }, g.liveKey);
    await waitForSent(n + 2);
    const mine = h.sent
      .filter((x) => x.commissionId === s.commissionId)
      .map((x) => x.kind)
      .sort();
    expect(mine).toEqual(['advertiser_manual_review', 'partner_commission_refunded']);
    expect(
      h.sent.find((x) => x.commissionId === s.commissionId && x.kind === 'advertiser_manual_review')?.payload,
    ).toMatchObject({ payout_id: paid.payout.id });
    const s2 = await newSale(10_000);
    // Counted before the refund: its delivery may land before the refund's response does.
    const sentBefore = h.sent.length;
    await refund({ transaction_id: s2.transaction_id, refund_amount_cents: 1_000 });
    await waitForSent(sentBefore + 1);
    expect(h.sent.filter((x) => x.commissionId === s2.commissionId).map((x) => x.kind)).toEqual([
      'partner_commission_refunded',
    ]);
  });
});

describe('POST /api/v1/track/refund: errors', () => {
  test.each([
    ['transaction_id missing', {}],
    ['transaction_id not a string', { transaction_id: 5 }],
    ['reason not refund/chargeback', { transaction_id: 'x', reason: 'fraud' }],
    ['refund_amount_cents negative', { transaction_id: 'x', refund_amount_cents: -1 }],
    ['refund_amount_cents fractional', { transaction_id: 'x', refund_amount_cents: 1.5 }],
    ['an unknown field', { transaction_id: 'x', note: 'n' }],
  ])('400 invalid_request: %s', async (_l, body) => {
    const r = await refund(body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      data: null,
      error: { status: 400, code: 'invalid_request', name: 'BadRequestError' },
    });
  });

  test('404 not_found: no sale with that transaction_id in the authenticated program (other programs are invisible)', async () => {
    const other = await createProgramFixture(h);
    const s = await newSale(1_000);
    const r = await refund({ transaction_id: s.transaction_id }, other.liveKey);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ data: null, error: { status: 404, code: 'not_found', name: 'NotFoundError' } });
    expect((await commission(s.commissionId!)).status).toBe('pending');
  });

  test('401 unauthorized without a key', async () => {
    const r = await h.request('/api/v1/track/refund', { body: { transaction_id: 'x' } });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  test('a test key only sees test sales', async () => {
    await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'test-refundable', amount_cents: 100 },
      headers: bearer(f.testKey),
    });
    const r = await refund({ transaction_id: 'test-refundable' }, f.testKey);
    expect(r.body).toEqual({
      success: true,
      status: 'no_commission',
      message: expect.any(String),
      data: { eventId: expect.any(Number), test_mode: true, programId: f.programId },
    });
    expect((await refund({ transaction_id: 'no-such' }, f.testKey)).status).toBe(404);
  });

  test.each([
    ['livemode: false', { livemode: false }],
    ['additional_data.test_mode: true', { additional_data: { test_mode: true } }],
  ])(
    'a test sale sent with a live key (%s) is found by a refund with that key: a test refund, no_commission',
    async (_l, flag) => {
      const transaction_id = `live-key-test-${++seq}`;
      const refundsBefore = (await h.admin('GET', `/programs/${f.programId}/refunds?limit=500`)).refunds.length;
      const sold = await h.request('/api/v1/track/sale', {
        body: { transaction_id, amount_cents: 5_000, customer_key: 'alice', ...flag },
        headers: bearer(f.liveKey),
      });
      expect(sold.body).toMatchObject({ success: true, data: { test_mode: true } });
      const r = await refund({ transaction_id, refund_amount_cents: 1_000 });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        success: true,
        status: 'no_commission',
        message: expect.any(String),
        data: { eventId: sold.body.data.eventId, programId: f.programId, test_mode: true },
      });
      // Production data untouched: no sale, no refund row.
      expect((await h.admin('GET', `/programs/${f.programId}/refunds?limit=500`)).refunds).toHaveLength(refundsBefore);
      expect(
        (await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales.map((s: any) => s.transaction_id),
      ).not.toContain(transaction_id);
    },
  );

  test('429 rate_limited applies to refunds too', async () => {
    const limited = await createProgramFixture(h, { rate_limit_per_minute: 1 });
    await refund({ transaction_id: 'a' }, limited.liveKey);
    const r = await refund({ transaction_id: 'a' }, limited.liveKey);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.any(Number) });
  });
});
