/** The server client (`createTrackerClient`) against the real service on a random port. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import { TestEvent } from '../../src/core/entities/test-event.ts';
import { type Fixture, type Harness } from '../helpers/harness.ts';
import { clickAndLeadVia, link, startClientTarget } from './client-target.ts';
import { rows } from './e2e-helpers.ts';

let h: Harness;
let base: string;
let f: Fixture;
let client: TrackerClient;
beforeAll(async () => {
  ({ h, base, f, client } = await startClientTarget());
});
afterAll(async () => {
  await h.close();
});
const clickAndLead = (customerKey: string) => clickAndLeadVia({ client, f }, customerKey);

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
