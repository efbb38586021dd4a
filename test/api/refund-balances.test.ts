/**
 * POST /api/v1/track/refund on the partner's side: the balance a refund deducts from (pending,
 * credited, paid out) and the notifications it sends.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';
import { createRefundProgram, refundSteps } from './refund-program.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createRefundProgram(h);
});
const { refund, newSale, account, usd, waitForSent } = refundSteps(h, () => f);

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
