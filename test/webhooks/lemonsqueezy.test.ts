import { describe, expect, test } from 'vitest';
import { lemonSqueezyEvent, lemonSqueezyInvoice } from '../providers/fixtures/lemonsqueezy.ts';
import { loadPublished } from '../providers/fixtures/published.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { lemonSqueezyKit } from './kits/lemonsqueezy-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(lemonSqueezyKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

describe('lemonsqueezy: specifics', () => {
  async function setup(config: Record<string, unknown> = {}) {
    const f = await w.newProgram(config);
    const customer = await w.newCustomer(f);
    return { f, keys: keysOf(f, customer) };
  }
  async function deliver(programId: number, event: object, status = 'processed') {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }
  const refund = (ref: string, totalCents: number, test = false) =>
    lemonSqueezyKit.refund({ ref, saleAmountCents: 10000, refundId: '', amountCents: 0, totalCents, test });

  test('order_refunded totals arriving out of order: the lower total is skipped, nothing is counted twice', async () => {
    const { f, keys } = await setup();
    const ref = newRef('o');
    const order = lemonSqueezyKit.payment({ ref, amountCents: 10000, keys });
    await deliver(f.programId, order.event);
    await deliver(f.programId, refund(ref, 6000));
    const late = await deliver(f.programId, refund(ref, 3000));
    expect(late.outcome).toEqual([
      expect.objectContaining({ kind: 'skipped', reason: 'cumulative refund total already applied' }),
    ]);
    expect((await w.sale(f.programId, order.transactionId))?.refunded_cents).toBe(6000);
    expect(
      (await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents, r.deduction_cents]),
    ).toEqual([['cumulative-6000', 6000, 600]]);
  });

  test('subscription_payment_refunded refunds the renewal invoice by its cumulative refunded_amount', async () => {
    const { f, keys } = await setup();
    const subscriptionId = `sub_${newRef('s')}`;
    await deliver(
      f.programId,
      lemonSqueezyKit.subscriptionStart({ ref: newRef('o'), subscriptionId, amountCents: 3000, keys }).event,
    );
    const renewalRef = newRef('inv');
    const renewal = lemonSqueezyKit.renewal({ ref: renewalRef, subscriptionId, amountCents: 3000, keys });
    await deliver(f.programId, renewal.event);
    const invoiceId = renewal.transactionId.replace('ls-invoice-', '');
    const refunded = (total: number) =>
      lemonSqueezyEvent(
        'subscription_payment_refunded',
        lemonSqueezyInvoice(
          {
            subscription_id: (renewal.event.data as any).attributes.subscription_id,
            total: 3000,
            subtotal: 3000,
            tax: 0,
            refunded_amount: total,
            refunded: true,
            status: total >= 3000 ? 'refunded' : 'partial_refund',
          },
          invoiceId,
        ),
        { custom_data: undefined },
      );
    await deliver(f.programId, refunded(1000));
    await deliver(f.programId, refunded(3000));
    const sale = await w.sale(f.programId, renewal.transactionId);
    expect(sale).toMatchObject({ refunded_cents: 3000, is_recurring: true });
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ status: 'reversed', reversed_cents: 300 });
  });

  test('subscription_payment_refunded of the older shape (refunded true, no refunded_amount) reverses the whole renewal, once', async () => {
    const { f, keys } = await setup();
    const subscriptionId = `sub_${newRef('s')}`;
    await deliver(
      f.programId,
      lemonSqueezyKit.subscriptionStart({ ref: newRef('o'), subscriptionId, amountCents: 999, keys }).event,
    );
    const renewal = lemonSqueezyKit.renewal({ ref: newRef('inv'), subscriptionId, amountCents: 999, keys });
    await deliver(f.programId, renewal.event);
    const sale = await w.sale(f.programId, renewal.transactionId);
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ amount_cents: 100 });
    // Lemon Squeezy's published invoice (fixtures/published/SOURCES.md), refunded, under the renewal's id.
    const invoice = loadPublished('lemonsqueezy', 'subscription-invoice');
    const refunded = () =>
      lemonSqueezyEvent(
        'subscription_payment_refunded',
        {
          ...invoice,
          id: renewal.transactionId.replace('ls-invoice-', ''),
          attributes: {
            ...(invoice.attributes as object),
            billing_reason: 'renewal',
            status: 'refunded',
            refunded: true,
            refunded_at: new Date().toISOString(),
          },
        },
        { custom_data: undefined },
      );
    const row = await deliver(f.programId, refunded());
    expect(row.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'reversed', deductionCents: 100 }),
    ]);
    expect(await w.sale(f.programId, renewal.transactionId)).toMatchObject({ refunded_cents: 999 });
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ status: 'reversed', reversed_cents: 100 });
    // A redelivery is the same event; a second event of the same refund changes nothing.
    const again = await w.send(f.programId, refunded());
    expect(again.body.id).toBe(row.id);
    expect(await w.list(f.programId, 'refunds')).toHaveLength(1);
  });

  test('test_mode order and its test_mode refund stay out of production tables', async () => {
    const { f, keys } = await setup();
    const ref = newRef('t');
    const order = lemonSqueezyKit.payment({ ref, amountCents: 10000, keys, test: true });
    await deliver(f.programId, order.event);
    const row = await deliver(f.programId, refund(ref, 10000, true));
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    for (const kind of ['sales', 'commissions', 'refunds'] as const)
      expect(await w.list(f.programId, kind)).toEqual([]);
    expect(await w.list(f.programId, 'test-events')).toEqual([
      expect.objectContaining({ transaction_id: order.transactionId }),
    ]);
  });

  // The order that starts a subscription names no subscription: the first renewal follows the
  // customer's first attributed sale, so the recurring policy (not the click window) applies.
  test('with a one_time policy the first renewal earns no commission', async () => {
    const { f, keys } = await setup({ recurring_policy: 'one_time' });
    const subscriptionId = `sub_${newRef('s')}`;
    await deliver(
      f.programId,
      lemonSqueezyKit.subscriptionStart({ ref: newRef('o'), subscriptionId, amountCents: 3000, keys }).event,
    );
    const renewal = lemonSqueezyKit.renewal({ ref: newRef('inv'), subscriptionId, amountCents: 3000, keys });
    await deliver(f.programId, renewal.event);
    const sale = await w.sale(f.programId, renewal.transactionId);
    expect(await w.commissionOf(f.programId, sale!.id)).toBeUndefined();
  });
});
