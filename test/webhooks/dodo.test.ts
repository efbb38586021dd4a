import { describe, expect, test } from 'vitest';
import { dodoEvent, dodoRefund } from '../providers/fixtures/dodo.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { dodoKit } from './provider-kits.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(dodoKit);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);

describe('dodo: specifics', () => {
  async function deliver(programId: number, body: string, secret = dodoKit.secret) {
    const res = await w.send(programId, body, dodoKit.sign(body, w.h.clock.now, secret));
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, 'processed');
  }

  test('a full refund that names no amount reverses the rest of the sale', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = dodoKit.payment({ ref: newRef('p'), amountCents: 10000, keys: keysOf(f, customer) });
    await deliver(f.programId, JSON.stringify(payment.event));
    await deliver(
      f.programId,
      JSON.stringify(
        dodoKit.refund({
          ref: payment.transactionId.slice(4),
          saleAmountCents: 10000,
          refundId: `ref_${newRef('a')}`,
          amountCents: 2500,
          totalCents: 2500,
        }),
      ),
    );
    await deliver(
      f.programId,
      JSON.stringify(
        dodoEvent(
          'refund.succeeded',
          dodoRefund({
            refund_id: `ref_${newRef('b')}`,
            payment_id: payment.transactionId,
            amount: null,
            is_partial: false,
          }),
        ),
      ),
    );
    expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({ refunded_cents: 10000 });
    expect((await w.list(f.programId, 'commissions'))[0]).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
  });

  test('test mode: a payment signed by the test-mode endpoint secret never creates a live sale', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = dodoKit.payment({ ref: newRef('t'), amountCents: 10000, keys: keysOf(f, customer), test: true });
    const row = await deliver(f.programId, JSON.stringify(payment.event), dodoKit.testSecret!);
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    expect(await w.list(f.programId, 'sales')).toEqual([]);
  });
});
