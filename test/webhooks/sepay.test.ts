/**
 * SePay end to end: an order registered with POST /api/v1/track/checkout, paid by bank transfer,
 * reported by SePay's webhook (the published sample with our ids and amounts, `Authorization:
 * Apikey <key>`), becomes a VND sale and its commission.
 */
import { describe, expect, test } from 'vitest';
import { SEPAY_API_KEY, sepayAuth, sepayHmac, sepayTransfer } from '../providers/fixtures/vietqr.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import { expectOneVndCommission, registerOrder } from './vietqr-steps.ts';

const sepayKit = {
  provider: 'sepay' as const,
  secret: SEPAY_API_KEY,
  testSecret: null,
  sign: (_body: string, _at: Date, secret = SEPAY_API_KEY) => sepayAuth(secret),
};
const w = useWebhookHarness(sepayKit);

let ids = 700_000;
let orders = 0;
const nextOrder = () => `DH${Date.now().toString(36).toUpperCase()}${++orders}`;

describe('sepay', () => {
  test('a registered order paid by transfer (code parsed by SePay) earns the commission once, however often SePay redelivers', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const order = nextOrder();
    expect((await registerOrder(w, f, { order_code: order, customer_key: customer.customerKey })).status).toBe(200);
    const id = ++ids;
    const body = JSON.stringify(
      sepayTransfer({ id, code: order, content: `${order} chuyen tien`, transferAmount: 500_000 }),
    );
    const first = await w.send(f.programId, body);
    expect(first.status).toBe(200);
    // SePay counts a delivery as received only when the answer says `success: true`.
    expect(first.body).toEqual({
      success: true,
      received: true,
      id: expect.any(Number),
      duplicate: false,
      status: 'pending',
    });
    await w.waitForInbox(f.programId, first.body.id, 'processed');
    const again = await w.send(f.programId, body);
    expect(again.body).toMatchObject({ success: true, id: first.body.id, duplicate: true });
    await expectOneVndCommission(w, f, `sepay_${id}`, 500_000);
  });

  test('without a parsed code, the registered order code written in the content is found', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const order = nextOrder();
    await registerOrder(w, f, { order_code: order, customer_key: customer.customerKey, provider: 'sepay' });
    const id = ++ids;
    const res = await w.send(
      f.programId,
      sepayTransfer({
        id,
        code: null,
        content: `MBVCB.123.${order.toLowerCase()}.CT tu 0123 toi 0456`,
        transferAmount: 90_000,
      }),
    );
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    await expectOneVndCommission(w, f, `sepay_${id}`, 90_000);
  });

  test('a wrong or missing API key is rejected and stores nothing', async () => {
    const f = await w.newProgram();
    const body = JSON.stringify(sepayTransfer({ id: ++ids }));
    for (const headers of [sepayAuth('not-the-key'), {}, { authorization: `Bearer ${SEPAY_API_KEY}` }]) {
      const res = await w.send(f.programId, body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(res.body.error.code).toBe('invalid_signature');
      expect(JSON.stringify(res.body)).not.toContain(SEPAY_API_KEY);
    }
    expect(await w.inbox(f.programId)).toEqual([]);
  });

  test('HMAC-SHA256 mode: a signed transfer earns the commission; an altered or replayed-late one is rejected and stores nothing', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const order = nextOrder();
    await registerOrder(w, f, { order_code: order, customer_key: customer.customerKey });
    const id = ++ids;
    const body = JSON.stringify(
      sepayTransfer({ id, code: order, content: `${order} chuyen tien`, transferAmount: 500_000 }),
    );
    const signed = sepayHmac(body, w.h.clock.now);
    const altered = body.replace('500000', '5000000');
    const rejected = [
      await w.send(f.programId, altered, signed),
      await w.send(f.programId, body, sepayHmac(body, new Date(w.h.clock.now.getTime() - 10 * 60_000))),
    ];
    for (const res of rejected) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_signature');
    }
    expect(await w.inbox(f.programId)).toEqual([]);
    const res = await w.send(f.programId, body, signed);
    expect(res.body).toMatchObject({ success: true, received: true, duplicate: false });
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    await expectOneVndCommission(w, f, `sepay_${id}`, 500_000);
  });

  test('a transfer naming no registered order is stored as ignored with order_not_registered; an outgoing transfer is unhandled', async () => {
    const f = await w.newProgram();
    const inbound = await w.send(f.programId, sepayTransfer({ id: ++ids }));
    const row = await w.waitForInbox(f.programId, inbound.body.id, 'ignored');
    expect(row.error).toBe('order_not_registered');
    const out = await w.send(f.programId, sepayTransfer({ id: ++ids, transferType: 'out', code: 'DH1' }));
    expect(out.body).toMatchObject({ success: true, status: 'ignored' });
    const outRow = await w.waitForInbox(f.programId, out.body.id, 'ignored');
    expect(outRow.error).toBe('unhandled_event_type');
    expect(await w.list(f.programId, 'sales')).toEqual([]);
  });
});
