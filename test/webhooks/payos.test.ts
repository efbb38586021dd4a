/**
 * PayOS end to end: an order registered with POST /api/v1/track/checkout, paid by bank transfer,
 * reported by PayOS's signed notification (the published sample, re-signed with the connection's
 * checksum key), becomes a VND sale and its commission.
 */
import { describe, expect, test } from 'vitest';
import { loadPublished } from '../providers/fixtures/published.ts';
import { PAYOS_CHECKSUM_KEY, payosRepartition, payosWebhook } from '../providers/fixtures/vietqr.ts';
import { newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import { expectOneVndCommission, registerOrder } from './vietqr-steps.ts';

const payosKit = {
  provider: 'payos' as const,
  secret: PAYOS_CHECKSUM_KEY,
  testSecret: null,
  // The signature travels inside the body.
  sign: () => ({}),
};
const w = useWebhookHarness(payosKit);

let orders = 50_000;
const paid = (orderCode: number, amount = 250_000, key?: string) =>
  payosWebhook({ orderCode, amount, reference: `FT${newRef('r')}`, description: `DH${orderCode}` }, key);

describe('payos', () => {
  test('a registered order paid by transfer earns the partner its commission, once however often PayOS redelivers', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const orderCode = ++orders;
    const reg = await registerOrder(w, f, {
      order_code: String(orderCode),
      customer_key: customer.customerKey,
      provider: 'payos',
      amount_cents: 250_000,
      currency: 'VND',
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const event = paid(orderCode);
    const body = JSON.stringify(event);
    const first = await w.send(f.programId, body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, id: expect.any(Number), duplicate: false, status: 'pending' });
    const row = await w.waitForInbox(f.programId, first.body.id, 'processed');
    expect(row.outcome).toEqual([expect.objectContaining({ kind: 'attributed', commissionCents: 25_000 })]);
    const again = await w.send(f.programId, body);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const reference = (event.data as { reference: string }).reference;
    await expectOneVndCommission(w, f, reference, 250_000);
    expect(await w.list(f.programId, 'sales')).toHaveLength(1);
  });

  test('an order registered with a click id only attributes through the click (an implicit lead is not needed)', async () => {
    const f = await w.newProgram();
    const click = await w.h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
    });
    const orderCode = ++orders;
    expect((await registerOrder(w, f, { order_code: String(orderCode), click_id: click.body.click_id })).status).toBe(
      200,
    );
    const event = paid(orderCode, 120_000);
    const res = await w.send(f.programId, event);
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    await expectOneVndCommission(w, f, (event.data as { reference: string }).reference, 120_000);
  });

  test('a notification signed with another checksum key, or altered after signing, is rejected and stores nothing', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const orderCode = ++orders;
    await registerOrder(w, f, { order_code: String(orderCode), customer_key: customer.customerKey });
    const forged = await w.send(f.programId, paid(orderCode, 250_000, 'not-the-checksum-key'));
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatchObject({ code: 'invalid_signature', details: { reason: 'signature_mismatch' } });
    const altered = paid(orderCode, 250_000);
    (altered.data as { amount: number }).amount = 25_000_000;
    const res = await w.send(f.programId, altered);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_signature');
    expect(JSON.stringify([forged.body, res.body])).not.toContain(PAYOS_CHECKSUM_KEY);
    expect(await w.inbox(f.programId)).toEqual([]);
    expect(await w.list(f.programId, 'sales')).toEqual([]);
  });

  test('one signed transfer is one sale: its fields re-partitioned under the same signature are refused and store nothing', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const orderCode = ++orders;
    await registerOrder(w, f, { order_code: String(orderCode), customer_key: customer.customerKey });
    const event = paid(orderCode);
    const res = await w.send(f.programId, event);
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    for (const absorbed of [1, 2]) {
      const forged = await w.send(f.programId, payosRepartition(event, 'reference', absorbed));
      expect(forged.status).toBe(400);
      expect(forged.body.error).toMatchObject({
        code: 'invalid_signature',
        details: { reason: 'ambiguous_signed_fields' },
      });
    }
    expect(await w.inbox(f.programId)).toHaveLength(1);
    await expectOneVndCommission(w, f, (event.data as { reference: string }).reference, 250_000);
    expect(await w.list(f.programId, 'sales')).toHaveLength(1);
  });

  test('a payment of an unregistered order is stored as ignored with order_not_registered; registering it and replaying records the sale', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const orderCode = ++orders;
    const event = paid(orderCode, 300_000);
    const res = await w.send(f.programId, event);
    expect(res.status).toBe(200);
    const row = await w.waitForInbox(f.programId, res.body.id, 'ignored');
    expect(row.error).toBe('order_not_registered');
    expect(await w.list(f.programId, 'sales')).toEqual([]);
    await registerOrder(w, f, { order_code: String(orderCode), customer_key: customer.customerKey });
    await w.h.admin('POST', `/programs/${f.programId}/webhook-events/replay`, { id: row.id });
    await w.waitForInbox(f.programId, row.id, 'processed');
    await expectOneVndCommission(w, f, (event.data as { reference: string }).reference, 300_000);
  });

  test("PayOS's webhook-URL confirmation call is acknowledged and stored as ignored", async () => {
    const f = await w.newProgram();
    const sample = loadPublished('payos', 'webhook');
    const res = await w.send(f.programId, payosWebhook(sample.data as Record<string, unknown>));
    expect(res.status).toBe(200);
    const row = await w.waitForInbox(f.programId, res.body.id, 'ignored');
    expect(row.error).toBe('webhook_confirmation');
  });
});
