import { beforeAll, describe, expect, test } from 'vitest';
import {
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';
import { createSaleProgram, saleSteps } from './sale-program.ts';

const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createSaleProgram(h);
});
const { tx, sale, counts } = saleSteps(h, () => f);

describe('POST /api/v1/track/sale: responses', () => {
  test('attributed: 200 with sale_id, commission_id and message; commission = rate × amount_cents as sent', async () => {
    const r = await sale({
      transaction_id: tx(),
      amount_cents: 4900,
      tax_cents: 900,
      customer_key: 'alice',
      line_items: { sku: 'a', qty: 2 },
      occurred_at: new Date(Date.now() - 3_600_000).toISOString(),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      sale_id: expect.any(Number),
      commission_id: expect.any(Number),
      message: expect.any(String),
    });
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    const c = commissions.find((x: any) => x.id === r.body.commission_id);
    // 20% of 4900 (tax_cents is ignored for the calculation): 980.
    expect(c).toMatchObject({ amount_cents: 980, currency: 'USD', status: 'pending', partner: f.partnerId });
    const { sales } = await h.admin('GET', `/programs/${f.programId}/sales`);
    const s = sales.find((x: any) => x.id === r.body.sale_id);
    expect(s).toMatchObject({
      line_items: { sku: 'a', qty: 2 },
      tax_cents: 900,
      amount_cents: 4900,
      sale_type: 'payment',
      is_recurring: false,
      refunded_cents: 0,
    });
    expect(s.occurred_at).not.toBeNull();
    const fees = (await h.admin('GET', `/programs/${f.programId}/platform-fees`))['platform-fees'];
    expect(fees.find((x: any) => x.sale === r.body.sale_id)).toMatchObject({ amount_cents: 74, rate_bps: 150 }); // 1.5% of 4900 = 73.5 → 74
  });

  test('currencies EUR and VND are accepted and never converted', async () => {
    const eur = await sale({ transaction_id: tx(), amount_cents: 1000, currency: 'EUR', customer_key: 'alice' });
    const vnd = await sale({
      transaction_id: tx(),
      amount_cents: 1_250_000_000,
      currency: 'VND',
      customer_key: 'alice',
    });
    expect([eur.status, vnd.status]).toEqual([200, 200]);
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    expect(commissions.find((c: any) => c.id === eur.body.commission_id)).toMatchObject({
      currency: 'EUR',
      amount_cents: 200,
    });
    expect(commissions.find((c: any) => c.id === vnd.body.commission_id)).toMatchObject({
      currency: 'VND',
      amount_cents: 250_000_000,
    });
  });

  test('per-product policy matched by product_id overrides the program rate', async () => {
    const r = await sale({ transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', product_id: 'pro-plan' });
    const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
    expect(commissions.find((c: any) => c.id === r.body.commission_id)).toMatchObject({
      amount_cents: 300,
      rate_bps: 3000,
    });
  });

  test('click_id is the fallback when customer_key is absent', async () => {
    const clickId = await clickAndLead(h, f, 'bob');
    const r = await sale({ transaction_id: tx(), amount_cents: 1000, click_id: clickId });
    expect(r.status).toBe(200);
    expect(r.body.commission_id).toEqual(expect.any(Number));
  });

  test('attribution window expired: 200 attributed false, nothing created', async () => {
    const h2 = await createHarness();
    try {
      const f2 = await createProgramFixture(h2, { attribution_window_days: 30 });
      await clickAndLead(h2, f2, 'late');
      h2.clock.advanceDays(45.5);
      const r = await h2.request('/api/v1/track/sale', {
        body: { transaction_id: 'late-1', amount_cents: 1000, customer_key: 'late' },
        headers: bearer(f2.liveKey),
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        success: true,
        attributed: false,
        reason: 'attribution_window_expired',
        click_age_days: 45,
        window_days: 30,
        sale_id: null,
        commission_id: null,
      });
      expect((await h2.admin('GET', `/programs/${f2.programId}/sales`)).sales).toHaveLength(0);
      expect((await h2.admin('GET', `/programs/${f2.programId}/commissions`)).commissions).toHaveLength(0);
    } finally {
      await h2.close();
    }
  });

  test.each([
    ['a test API key', {}, 'test'],
    ['livemode false', { livemode: false }, 'live'],
    ['additional_data.test_mode true', { additional_data: { test_mode: true } }, 'live'],
  ])('test mode via %s: 200 with data.eventId/programId/test_mode, no production rows', async (_l, extra, keyMode) => {
    const before = await counts();
    const r = await sale(
      { transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', ...extra },
      keyMode === 'test' ? f.testKey : f.liveKey,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: expect.any(String),
      data: { eventId: expect.any(Number), programId: f.programId, test_mode: true },
    });
    const after = await counts();
    expect(after).toEqual({ ...before, tests: before.tests + 1 });
  });

  test('test mode: transaction_id and amount_cents are optional; a repeated test transaction returns the same event', async () => {
    const r = await sale({}, f.testKey);
    expect(r.status).toBe(200);
    expect(r.body.data.test_mode).toBe(true);
    const a = await sale({ transaction_id: 'test-tx', amount_cents: 5 }, f.testKey);
    const b = await sale({ transaction_id: 'test-tx', amount_cents: 5 }, f.testKey);
    expect(b.body.data.eventId).toBe(a.body.data.eventId);
  });

  test('livemode true or omitted does not force a live sale with a test key', async () => {
    const r = await sale(
      { transaction_id: tx(), amount_cents: 1000, customer_key: 'alice', livemode: true },
      f.testKey,
    );
    expect(r.body.data.test_mode).toBe(true);
  });

  test('duplicate transaction_id: 409 platform envelope, ConflictError, details.sale_id of the first sale; no second sale', async () => {
    const id = tx();
    const first = await sale({ transaction_id: id, amount_cents: 1000, customer_key: 'alice' });
    const before = await counts();
    const again = await sale({ transaction_id: id, amount_cents: 2000, customer_key: 'alice' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      data: null,
      error: {
        status: 409,
        name: 'ConflictError',
        message: expect.any(String),
        details: { sale_id: first.body.sale_id },
        code: 'duplicate_transaction',
      },
    });
    expect(await counts()).toEqual(before);
  });
});
