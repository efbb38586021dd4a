import { describe, expect, test } from 'vitest';
import { polarEvent, polarOrder, polarRefund } from '../providers/fixtures/polar.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { polarKit } from './kits/polar-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(polarKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

describe('polar: specifics', () => {
  async function deliver(programId: number, body: string, secret = polarKit.secret, status = 'processed') {
    const res = await w.send(programId, body, polarKit.sign(body, w.h.clock.now, secret));
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }

  test('a refund created pending is ignored, applied once updated to succeeded, and a redelivery changes nothing', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const ref = newRef('o');
    const payment = polarKit.payment({ ref, amountCents: 10000, keys: keysOf(f, customer) });
    await deliver(f.programId, JSON.stringify(payment.event));
    const id = `ref_${newRef('r')}`;
    const pending = JSON.stringify(
      polarEvent(
        'refund.created',
        polarRefund({ id, order_id: payment.transactionId, amount: 4000, tax_amount: 0, status: 'pending' }),
      ),
    );
    expect(await deliver(f.programId, pending, polarKit.secret, 'ignored')).toMatchObject({
      error: 'refund_not_succeeded',
    });
    const succeeded = JSON.stringify(
      polarEvent('refund.updated', polarRefund({ id, order_id: payment.transactionId, amount: 4000, tax_amount: 0 })),
    );
    await deliver(f.programId, succeeded);
    const again = await w.send(f.programId, succeeded, polarKit.sign(succeeded, w.h.clock.now));
    expect(again.body).toMatchObject({ duplicate: true });
    expect(
      (await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents, r.deduction_cents]),
    ).toEqual([[id, 4000, 400]]);
  });

  test.each(['refund.updated first', 'order.refunded first'])(
    'order.refunded beside refund.updated (%s): each refund applies once',
    async (order) => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const payment = polarKit.payment({ ref: newRef('or'), amountCents: 10000, keys: keysOf(f, customer) });
      await deliver(f.programId, JSON.stringify(payment.event));
      const refund = (id: string, amount: number) =>
        JSON.stringify(
          polarEvent('refund.updated', polarRefund({ id, order_id: payment.transactionId, amount, tax_amount: 0 })),
        );
      const orderRefunded = (total: number) =>
        JSON.stringify(
          polarEvent(
            'order.refunded',
            polarOrder({
              id: payment.transactionId,
              status: 'partially_refunded',
              refunded_amount: total,
              refunded_tax_amount: 0,
            }),
          ),
        );
      const first = `ref_${newRef('a')}`;
      const second = `ref_${newRef('b')}`;
      const steps =
        order === 'refund.updated first'
          ? [refund(first, 3000), orderRefunded(3000), orderRefunded(5000), refund(second, 2000)]
          : [orderRefunded(3000), refund(first, 3000), refund(second, 2000), orderRefunded(5000)];
      for (const body of steps) await deliver(f.programId, body);
      expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({ refunded_cents: 5000 });
      expect((await w.list(f.programId, 'commissions'))[0]).toMatchObject({ reversed_cents: 500 });
    },
  );

  test('sandbox: a sale and its refund signed by the test secret stay out of production tables', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = polarKit.payment({ ref: newRef('sbx'), amountCents: 10000, keys: keysOf(f, customer), test: true });
    await deliver(f.programId, JSON.stringify(payment.event), polarKit.testSecret!);
    const refund = JSON.stringify(
      polarEvent(
        'refund.updated',
        polarRefund({ id: `ref_${newRef('t')}`, order_id: payment.transactionId, amount: 10000, tax_amount: 0 }),
      ),
    );
    const row = await deliver(f.programId, refund, polarKit.testSecret!);
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    for (const kind of ['sales', 'commissions', 'refunds'] as const)
      expect(await w.list(f.programId, kind)).toEqual([]);
  });
});
