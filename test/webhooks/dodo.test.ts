import { describe, expect, test } from 'vitest';
import { dodoDispute, dodoEvent, dodoRefund } from '../providers/fixtures/dodo.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { dodoKit } from './kits/dodo-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(dodoKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

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

  test('dispute lost: opened reverses the credited commission as a chargeback, lost applies nothing more, won asks for a review once', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = dodoKit.payment({ ref: newRef('d'), amountCents: 10000, keys: keysOf(f, customer) });
    await deliver(f.programId, JSON.stringify(payment.event));
    const commission = (await w.list(f.programId, 'commissions'))[0]!;
    await w.h.admin('POST', `/programs/${f.programId}/commissions/${commission.id}/approve`, {});
    expect(await w.balanceCents(f)).toBe(1000);
    const dispute = (type: string, status: string) =>
      JSON.stringify(
        dodoEvent(
          type,
          dodoDispute({
            dispute_id: `dsp_${payment.transactionId}`,
            payment_id: payment.transactionId,
            amount: '10000',
            dispute_status: status,
          }),
        ),
      );
    const opened = await deliver(f.programId, dispute('dispute.opened', 'dispute_opened'));
    expect(opened.outcome).toEqual([
      expect.objectContaining({
        kind: 'applied',
        status: 'reversed',
        deductionCents: 1000,
        balanceDeductionCents: 1000,
      }),
    ]);
    expect(await w.commissionOf(f.programId, commission.sale)).toMatchObject({
      status: 'reversed',
      reason: 'chargeback',
    });
    expect(await w.balanceCents(f)).toBe(0);
    const lost = await deliver(f.programId, dispute('dispute.lost', 'dispute_lost'));
    expect(lost.outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);
    expect((await w.list(f.programId, 'refunds')).length).toBe(1);
  });

  test('a dispute only reported once lost still reverses the commission; a won one re-credits nothing', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = dodoKit.payment({ ref: newRef('l'), amountCents: 8000, keys: keysOf(f, customer) });
    await deliver(f.programId, JSON.stringify(payment.event));
    const body = (type: string, id: string) =>
      JSON.stringify(
        dodoEvent(type, dodoDispute({ dispute_id: id, payment_id: payment.transactionId, amount: '80.00' })),
      );
    const lost = await deliver(f.programId, body('dispute.lost', `dsp_${newRef('x')}`));
    expect(lost.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'reversed', deductionCents: 800 }),
    ]);
    const won = await deliver(f.programId, body('dispute.won', `dsp_${newRef('y')}`));
    expect(won.outcome).toEqual([expect.objectContaining({ kind: 'nothing_to_review' })]);
    expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({ refunded_cents: 8000 });
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
