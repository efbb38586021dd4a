import { describe, expect, test } from 'vitest';
import { paddleAdjustment, paddleEvent } from '../providers/fixtures/paddle.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { paddleKit } from './provider-kits.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(paddleKit);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);

describe('paddle: specifics', () => {
  async function paidTransaction(test = false) {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const ref = newRef('txn');
    const payment = paddleKit.payment({ ref, amountCents: 10000, keys: keysOf(f, customer), test });
    await deliver(f.programId, payment.event);
    return { f, ref, transactionId: payment.transactionId };
  }
  async function deliver(programId: number, event: object, status = 'processed') {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }
  const adjustmentEvent = (type: string, transactionId: string, overrides: Record<string, unknown>) => {
    const totals = { subtotal: '3000', tax: '0', total: '3000', fee: '0', earnings: '3000', currency_code: 'USD' };
    return paddleEvent(type, paddleAdjustment({ transaction_id: transactionId, totals, ...overrides }), { event_id: `evt_${newRef('e')}` });
  };

  test('a refund waits in pending_approval (ignored) and applies once approved; a later update of it is skipped', async () => {
    const { f, transactionId } = await paidTransaction();
    const id = `adj_${newRef('a')}`;
    expect(await deliver(f.programId, adjustmentEvent('adjustment.created', transactionId, { id, status: 'pending_approval' }), 'ignored'))
      .toMatchObject({ error: 'refund_not_approved' });
    await deliver(f.programId, adjustmentEvent('adjustment.updated', transactionId, { id, status: 'approved' }));
    const again = await deliver(f.programId, adjustmentEvent('adjustment.updated', transactionId, { id, status: 'approved' }));
    expect(again.outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);
    expect((await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents, r.deduction_cents])).toEqual([[id, 3000, 300]]);
  });

  test('credits and chargebacks are not refunds: ignored, commission untouched', async () => {
    const { f, transactionId } = await paidTransaction();
    for (const action of ['credit', 'chargeback']) {
      expect(await deliver(f.programId, adjustmentEvent('adjustment.created', transactionId, { id: `adj_${newRef(action)}`, action }), 'ignored'))
        .toMatchObject({ error: 'not_a_refund' });
    }
    expect((await w.list(f.programId, 'commissions'))[0]).toMatchObject({ status: 'pending', reversed_cents: 0 });
  });

  test('a refund of a test transaction (custom_data test_mode) stays out of production tables', async () => {
    const { f, transactionId } = await paidTransaction(true);
    // Adjustments carry no custom_data, so Paddle cannot flag this refund as a test itself.
    const row = await deliver(f.programId, adjustmentEvent('adjustment.updated', transactionId, { id: `adj_${newRef('t')}` }));
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    for (const kind of ['sales', 'commissions', 'refunds'] as const) expect(await w.list(f.programId, kind)).toEqual([]);
    expect(await w.list(f.programId, 'test-events')).toEqual([expect.objectContaining({ transaction_id: transactionId })]);
  });
});
