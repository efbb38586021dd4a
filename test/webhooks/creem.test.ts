import { describe, expect, test } from 'vitest';
import { creemCheckout, creemEvent, creemRefund, creemSubscription } from '../providers/fixtures/creem.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { creemKit } from './kits/creem-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(creemKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

describe('creem: specifics', () => {
  async function deliver(programId: number, event: object, status = 'processed') {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }

  test("the first subscription.paid is the checkout's sale: recorded once, by checkout.completed", async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const ref = newRef('s');
    const subscriptionId = `sub_${newRef('sub')}`;
    const start = creemKit.subscriptionStart({ ref, subscriptionId, amountCents: 3000, keys: keysOf(f, customer) });
    await deliver(f.programId, start.event);
    const metadata = {
      tracker_customer_key: customer.customerKey,
      tracker_click_id: customer.clickId,
      program_id: String(f.programId),
    };
    const firstPaid = creemSubscription(
      { id: subscriptionId, metadata, created_at: '2026-02-28T07:55:24.184Z' },
      {
        id: start.transactionId,
        amount: 3000,
        amount_paid: 3000,
        tax_amount: 0,
        period_start: Date.parse('2026-02-28T07:55:24.184Z'),
      },
    );
    const row = await deliver(f.programId, creemEvent('subscription.paid', firstPaid, `evt_${newRef('e')}`), 'ignored');
    expect(row.error).toBe('first_payment_recorded_by_checkout');
    expect((await w.list(f.programId, 'sales')).map((s) => [s.transaction_id, s.is_recurring])).toEqual([
      [start.transactionId, false],
    ]);
  });

  test('the documented checkout (an order without a transaction) records the sale under the order; its refund and dispute find it through the order', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const ref = newRef('doc');
    const metadata = {
      tracker_customer_key: customer.customerKey,
      tracker_click_id: customer.clickId,
      program_id: String(f.programId),
    };
    const checkout = creemCheckout(
      { id: `ch_${ref}`, metadata },
      { id: `ord_${ref}`, transaction: undefined, amount: 10000, amount_paid: 10000, tax_amount: 0 },
    );
    await deliver(f.programId, creemEvent('checkout.completed', checkout, `evt_${newRef('e')}`));
    expect(await w.sale(f.programId, `ord_${ref}`)).toMatchObject({ amount_cents: 10000 });
    const refund = creemRefund({ id: `ref_${ref}`, refund_amount: 2500 }, { id: `tran_${ref}`, order: `ord_${ref}` });
    const refunded = await deliver(f.programId, creemEvent('refund.created', refund, `evt_${newRef('e')}`));
    expect(refunded.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 250 }),
    ]);
    const dispute = {
      id: `disp_${ref}`,
      object: 'dispute',
      amount: 7500,
      currency: 'USD',
      transaction: { id: `tran_${ref}`, object: 'transaction', order: `ord_${ref}` },
      mode: 'prod',
    };
    const disputed = await deliver(f.programId, creemEvent('dispute.created', dispute, `evt_${newRef('e')}`));
    expect(disputed.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'reversed', deductionCents: 750 }),
    ]);
    expect(await w.commissionOf(f.programId, (await w.sale(f.programId, `ord_${ref}`))!.id)).toMatchObject({
      status: 'reversed',
      reason: 'chargeback',
    });
  });
});
