/** The server client (`createTrackerClient`) against the real service on a random port. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import type { Currency } from '../../tracker/src/client-types.ts';
import { TestEvent } from '../../src/core/entities/test-event.ts';
import { bearer, createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { findClosedPort } from '../tracker/test-http-server.ts';
import { rows } from './e2e-helpers.ts';

let h: Harness;
let base: string;
let f: Fixture;
let client: TrackerClient;

beforeAll(async () => {
  h = await createHarness();
  base = await h.listen();
  f = await createProgramFixture(h, { domain: 'shop.example', commission_rate_bps: 1000 });
  client = createTrackerClient({ apiKey: f.liveKey, apiUrl: base });
});
afterAll(async () => {
  await h.close();
});

const link = (code: string) => `https://shop.example/pricing?aff=${code}`;

/** A click through the client (keyless) and a lead binding `customerKey` to it. */
async function clickAndLead(customerKey: string): Promise<string> {
  const click = await client.trackClick({ affiliateUrl: link(f.partnerCode) });
  const clickId = (click.data as { click_id: string }).click_id;
  const lead = await client.trackLead({ customerExternalId: customerKey, clickId });
  expect(lead.ok).toBe(true);
  return clickId;
}

describe('every method against the real server', () => {
  test('trackClick records a click without a key and answers the program cookie window', async () => {
    const res = await client.trackClick({
      affiliateUrl: link(f.partnerCode),
      pageUrl: 'https://shop.example/pricing',
      referrerUrl: 'https://blog.example/post',
    });
    expect(res).toEqual({
      ok: true,
      status: 200,
      error: undefined,
      code: undefined,
      data: { success: true, click_id: expect.any(String), partner_code: f.partnerCode, cookie_window_days: 60 },
    });
    const clicks = await rows(h).clicks(f.programId);
    expect(clicks.find((c) => c.id === res.data!.click_id)).toMatchObject({
      partner: f.partnerId,
      referrerUrl: 'https://blog.example/post',
    });

    const again = await client.trackClick({ affiliateUrl: link(f.partnerCode), existingClickId: res.data!.click_id });
    expect(again.data?.click_id).toBe(res.data!.click_id); // overwritten, not a second click
  });

  test('trackLead binds a customer by id and click, with email, event name and additional data', async () => {
    const click = await client.trackClick({ affiliateUrl: link(f.partnerCode) });
    const clickId = click.data!.click_id;
    const res = await client.trackLead({
      customerExternalId: 'lead-1',
      clickId,
      email: 'lead@example.com',
      eventName: 'signup',
      additionalData: { plan: 'pro' },
    });
    expect(res).toMatchObject({
      ok: true,
      status: 200,
      data: { success: true, customer_id: expect.any(Number), customer_key: 'lead-1', click_id: clickId },
    });
    const customer = (await rows(h).customers(f.programId)).find((c) => c.customerKey === 'lead-1');
    expect(customer).toMatchObject({
      click: clickId,
      partner: f.partnerId,
      eventName: 'signup',
      emailHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  test('trackSale attributes by customer id, falls back to the click id, and trackRefund reverses exactly', async () => {
    await clickAndLead('buyer-1');
    const sale = await client.trackSale({
      customerExternalId: 'buyer-1',
      amount: 4900,
      invoiceId: 'inv-c1',
      currency: 'EUR',
      taxCents: 400,
      eventName: 'purchase',
    });
    expect(sale).toMatchObject({
      ok: true,
      status: 200,
      data: {
        success: true,
        sale_id: expect.any(Number),
        commission_id: expect.any(Number),
        message: expect.any(String),
      },
    });
    const commissionId = (sale.data as { commission_id: number }).commission_id;
    expect(await rows(h).commission(commissionId)).toMatchObject({
      amountCents: 490,
      currency: 'EUR',
      partner: f.partnerId,
    });

    const byClick = await client.trackSale({
      clickId: await clickAndLead('buyer-2'),
      amount: 1000,
      invoiceId: 'inv-c2',
    });
    expect(byClick).toMatchObject({
      ok: true,
      data: { sale_id: expect.any(Number), commission_id: expect.any(Number) },
    });

    const r1 = await client.trackRefund({
      invoiceId: 'inv-c1',
      refundAmountCents: 1000,
      refundId: 'r-1',
      refundReason: 'damaged',
    });
    expect(r1).toEqual({
      ok: true,
      status: 200,
      error: undefined,
      code: undefined,
      data: { success: true, status: 'refunded', deductionAmount: 100, commission_id: commissionId },
    });
    const retry = await client.trackRefund({ invoiceId: 'inv-c1', refundAmountCents: 1000, refundId: 'r-1' });
    expect(retry.data).toMatchObject({ status: 'skipped', commission_id: commissionId });
    const r2 = await client.trackRefund({ invoiceId: 'inv-c1', refundAmountCents: 0, reason: 'chargeback' });
    expect(r2.data).toEqual({ success: true, status: 'reversed', deductionAmount: 390, commission_id: commissionId });
    // Each call records its reason: refund_reason, else reason.
    expect(await rows(h).commission(commissionId)).toMatchObject({
      status: 'reversed',
      reversedCents: 490,
      reason: 'chargeback',
    });
  });

  test('trackSale accepts every documented option (subscription, email) in one call', async () => {
    await clickAndLead('buyer-sub');
    const res = await client.trackSale({
      customerExternalId: 'buyer-sub',
      amount: 2000,
      invoiceId: 'inv-sub-1',
      currency: 'USD',
      saleType: 'subscription',
      isRecurring: true,
      subscriptionId: 'sub-1',
      subscriptionInterval: 'monthly',
      email: 'sub@example.com',
      additionalData: { plan: 'pro' },
    });
    expect(res).toMatchObject({ ok: true, status: 200, data: { commission_id: expect.any(Number) } });
    expect((await rows(h).sales(f.programId)).find((s) => s.transactionId === 'inv-sub-1')).toMatchObject({
      saleType: 'subscription',
      subscriptionId: 'sub-1',
      isRecurring: true,
    });
  });

  test('trackTestSale and the test key record test events only; status reports the program and key mode', async () => {
    const salesBefore = (await rows(h).sales(f.programId)).length;
    const res = await client.trackTestSale({ amount: 4900, currency: 'VND', invoiceId: 'test-1' });
    expect(res).toMatchObject({
      ok: true,
      status: 200,
      data: { success: true, data: { eventId: expect.any(Number), programId: f.programId, test_mode: true } },
    });
    const bare = await client.trackTestSale();
    expect(bare).toMatchObject({ ok: true, data: { data: { test_mode: true } } });
    expect((await rows(h).sales(f.programId)).length).toBe(salesBefore);
    expect(await h.ctx.db.em.fork().count(TestEvent, { program: f.programId })).toBe(2);

    const status = await client.status();
    expect(status).toMatchObject({
      ok: true,
      status: 200,
      data: {
        success: true,
        program: { id: f.programId, name: 'Acme', domain: 'shop.example' },
        key_mode: 'live',
        activity: { sales: { count: salesBefore } },
      },
    });
    const testClient = createTrackerClient({ apiKey: f.testKey, apiUrl: base });
    expect((await testClient.status()).data).toMatchObject({ key_mode: 'test' });
    // A test key's lead and sale are test events too: no customer, no sale.
    const customersBefore = (await rows(h).customers(f.programId)).length;
    const lead = await testClient.trackLead({ customerExternalId: 'test-lead', clickId: 'whatever' });
    expect(lead).toMatchObject({ ok: true, data: { data: { test_mode: true } } });
    const sale = await testClient.trackSale({
      customerExternalId: 'test-lead',
      amount: 100,
      invoiceId: 'inv-test-key',
    });
    expect(sale).toMatchObject({ ok: true, data: { data: { test_mode: true } } });
    expect((await rows(h).customers(f.programId)).length).toBe(customersBefore);
    expect((await rows(h).sales(f.programId)).length).toBe(salesBefore);
  });
});

describe('errors are mapped to { ok: false, status, code, error }', () => {
  test('400 invalid_request (click without aff, refund with an unknown reason) and 400 no_attribution', async () => {
    const click = await client.trackClick({ affiliateUrl: 'https://shop.example/pricing' });
    expect(click).toMatchObject({
      ok: false,
      status: 400,
      data: null,
      code: 'invalid_request',
      error: expect.stringMatching(/^invalid_request: /),
    });
    const refund = await client.trackRefund({ invoiceId: 'inv-c1', reason: 'goodwill' as 'refund' });
    expect(refund).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_request',
      error: expect.stringMatching(/^invalid_request: .*reason must be "refund" or "chargeback"/),
    });
    const sale = await client.trackSale({ customerExternalId: 'nobody', amount: 100, invoiceId: 'inv-nobody' });
    expect(sale).toMatchObject({ ok: false, status: 400, code: 'no_attribution' });
  });

  test('401 unauthorized for an unknown key, 401 api_key_rotation_required (with the hint) for a retired one', async () => {
    const unknown = await createTrackerClient({ apiKey: 'trk_live_not-a-real-key-000000', apiUrl: base }).status();
    expect(unknown).toMatchObject({
      ok: false,
      status: 401,
      data: null,
      code: 'unauthorized',
      error: 'unauthorized: Invalid API key',
    });

    const extra = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    const retiredClient = createTrackerClient({ apiKey: extra.key, apiUrl: base });
    expect((await retiredClient.status()).ok).toBe(true);
    await h.admin('POST', `/programs/${f.programId}/keys/${extra.id}/retire`, {});
    for (const res of [
      await retiredClient.status(),
      await retiredClient.trackSale({ customerExternalId: 'buyer-1', amount: 100, invoiceId: 'inv-retired' }),
    ]) {
      expect(res).toMatchObject({ ok: false, status: 401, code: 'api_key_rotation_required' });
      expect(res.error).toMatch(/^api_key_rotation_required: .+ \(Issue a new key/);
      expect(res.error).not.toContain(extra.key);
    }
  });

  test('404 not_found for a refund of an unknown sale, also when the sale belongs to another program', async () => {
    expect(await client.trackRefund({ invoiceId: 'no-such-invoice' })).toMatchObject({
      ok: false,
      status: 404,
      code: 'not_found',
    });
    const other = await createProgramFixture(h, { domain: 'shop.example' });
    const otherClient = createTrackerClient({ apiKey: other.liveKey, apiUrl: base });
    expect(await otherClient.trackRefund({ invoiceId: 'inv-c2' })).toMatchObject({
      ok: false,
      status: 404,
      code: 'not_found',
    });
  });

  test('409 duplicate_transaction: the client reports the code; the body carries details.sale_id of the first sale', async () => {
    await clickAndLead('buyer-dup');
    const first = await client.trackSale({ customerExternalId: 'buyer-dup', amount: 500, invoiceId: 'inv-dup' });
    const saleId = (first.data as { sale_id: number }).sale_id;
    const dup = await client.trackSale({ customerExternalId: 'buyer-dup', amount: 500, invoiceId: 'inv-dup' });
    expect(dup).toMatchObject({
      ok: false,
      status: 409,
      data: null,
      code: 'duplicate_transaction',
      error: expect.stringMatching(/^duplicate_transaction: /),
    });
    // The client result has no room for details (spec: data is null on failure); the wire has them.
    const raw = await h.request('/api/v1/track/sale', {
      body: { customer_key: 'buyer-dup', amount_cents: 500, transaction_id: 'inv-dup' },
      headers: bearer(f.liveKey),
    });
    expect(raw.body).toEqual({
      data: null,
      error: {
        status: 409,
        name: 'ConflictError',
        message: expect.any(String),
        details: { sale_id: saleId },
        code: 'duplicate_transaction',
      },
    });
    expect((await rows(h).sales(f.programId)).filter((s) => s.transactionId === 'inv-dup')).toHaveLength(1);
  });

  test('422 unsupported_currency creates nothing', async () => {
    await clickAndLead('buyer-gbp');
    const before = (await rows(h).sales(f.programId)).length;
    const res = await client.trackSale({
      customerExternalId: 'buyer-gbp',
      amount: 500,
      invoiceId: 'inv-gbp',
      currency: 'GBP' as Currency,
    });
    expect(res).toMatchObject({ ok: false, status: 422, code: 'unsupported_currency' });
    expect((await rows(h).sales(f.programId)).length).toBe(before);
  });

  test('429 rate_limited with the retry delay, per key', async () => {
    const limited = await createProgramFixture(h, { domain: 'shop.example', rate_limit_per_minute: 3 });
    const c = createTrackerClient({ apiKey: limited.liveKey, apiUrl: base });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await c.trackRefund({ invoiceId: `missing-${i}` }));
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 429]);
    expect(results[3]).toMatchObject({
      ok: false,
      data: null,
      code: 'rate_limited',
      error: expect.stringMatching(/^rate_limited: .+ \(retry after \d+s\)$/),
    });
    // Another program's key is not affected.
    expect((await client.trackRefund({ invoiceId: 'missing-x' })).status).toBe(404);
  });

  test('a network failure resolves with status 0 instead of throwing', async () => {
    const down = createTrackerClient({ apiKey: f.liveKey, apiUrl: `http://127.0.0.1:${await findClosedPort()}` });
    const res = await down.trackSale({ customerExternalId: 'buyer-1', amount: 100, invoiceId: 'inv-down' });
    expect(res).toMatchObject({
      ok: false,
      status: 0,
      data: null,
      code: undefined,
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(res.error).not.toContain(f.liveKey);
  });
});
