import { describe, expect, test } from 'vitest';
import { creemEvent, creemSubscription } from '../providers/fixtures/creem.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { creemKit } from './provider-kits.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(creemKit);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);

describe('creem: specifics', () => {
  async function deliver(programId: number, event: object) {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, 'processed');
  }

  test("the first subscription.paid reports the checkout's transaction: one sale, the second report is a duplicate", async () => {
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
    const row = await deliver(f.programId, creemEvent('subscription.paid', firstPaid, `evt_${newRef('e')}`));
    expect(row.outcome).toEqual([expect.objectContaining({ kind: 'duplicate' })]);
    expect((await w.list(f.programId, 'sales')).map((s) => [s.transaction_id, s.is_recurring])).toEqual([
      [start.transactionId, false],
    ]);
  });
});
