import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';
import { createRefundProgram, refundSteps } from './refund-program.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createRefundProgram(h);
});
const { refund, newSale, commission, waitForSent } = refundSteps(h, () => f);
let seq = 0;

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
