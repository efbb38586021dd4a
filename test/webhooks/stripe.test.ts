import { describe, expect, test } from 'vitest';
import { bearer } from '../helpers/harness.ts';
import { basilInvoice, checkoutSession, stripeEvent, stripeRefund } from '../providers/fixtures/stripe.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(stripeKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

describe('stripe: specifics', () => {
  async function setup() {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    return { f, keys: keysOf(f, customer) };
  }
  async function deliver(programId: number, event: object, status = 'processed') {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }
  const refundEvent = (type: string, ref: string, refund: Record<string, unknown>, livemode = true) =>
    stripeEvent(type, stripeRefund({ payment_intent: `pi_${ref}`, ...refund }), { id: `evt_${newRef('e')}`, livemode });

  test('refund.created pending is ignored; refund.created and refund.updated both succeeded apply the refund once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('pi');
    const payment = stripeKit.payment({ ref, amountCents: 10000, keys });
    await deliver(f.programId, payment.event);
    expect(
      await deliver(
        f.programId,
        refundEvent('refund.created', ref, { id: 're_a', amount: 4000, status: 'pending' }),
        'ignored',
      ),
    ).toMatchObject({ error: 'refund_not_succeeded' });
    await deliver(f.programId, refundEvent('refund.updated', ref, { id: 're_a', amount: 4000, status: 'succeeded' }));
    const again = await deliver(
      f.programId,
      refundEvent('refund.updated', ref, {
        id: 're_a',
        amount: 4000,
        status: 'succeeded',
        metadata: { note: 'edited' },
      }),
    );
    expect(again.outcome).toEqual([
      expect.objectContaining({ kind: 'skipped', reason: 'refund_id re_a already applied' }),
    ]);
    expect((await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.deduction_cents, r.source])).toEqual([
      ['re_a', 400, 'provider'],
    ]);
  });

  test('the same Stripe refund also reported through the API with its refund id is applied once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('pi');
    const payment = stripeKit.payment({ ref, amountCents: 10000, keys });
    await deliver(f.programId, payment.event);
    await deliver(f.programId, refundEvent('refund.updated', ref, { id: 're_shared', amount: 2500 }));
    const api = await w.h.request('/api/v1/track/refund', {
      body: { transaction_id: payment.transactionId, refund_amount_cents: 2500, refund_id: 're_shared' },
      headers: bearer(f.liveKey),
    });
    expect(api.body).toMatchObject({ success: true, status: 'skipped' });
    expect((await w.sale(f.programId, payment.transactionId))?.refunded_cents).toBe(2500);
  });

  test('a delayed payment method: completed unpaid is ignored, async_payment_succeeded records the sale', async () => {
    const { f, keys } = await setup();
    const ref = newRef('pi');
    const session = checkoutSession({
      id: `cs_${ref}`,
      payment_intent: `pi_${ref}`,
      amount_total: 10000,
      metadata: {
        tracker_click_id: keys.clickId,
        tracker_customer_key: keys.customerKey,
        program_id: String(f.programId),
      },
    });
    await deliver(
      f.programId,
      stripeEvent('checkout.session.completed', { ...session, payment_status: 'unpaid' }, { id: `evt_${newRef('e')}` }),
      'ignored',
    );
    await deliver(
      f.programId,
      stripeEvent('checkout.session.async_payment_succeeded', session, { id: `evt_${newRef('e')}` }),
    );
    expect(await w.list(f.programId, 'sales')).toEqual([
      expect.objectContaining({ transaction_id: `pi_${ref}`, partner: f.partnerId }),
    ]);
  });

  test('basil invoices name no PaymentIntent: keyed by the invoice id; without invoice_payment.paid enabled a Stripe refund cannot find it, /track/refund can', async () => {
    const { f, keys } = await setup();
    const ref = newRef('in');
    const invoice = basilInvoice({
      id: `in_${ref}`,
      currency: 'usd',
      amount_paid: 10000,
      amount_due: 10000,
      total: 10000,
      billing_reason: 'subscription_create',
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: {
          metadata: {
            tracker_click_id: keys.clickId,
            tracker_customer_key: keys.customerKey,
            program_id: String(f.programId),
          },
          subscription: `sub_${ref}`,
        },
      },
    });
    await deliver(f.programId, stripeEvent('invoice.paid', invoice, { id: `evt_${newRef('e')}` }));
    expect(await w.sale(f.programId, `in_${ref}`)).toMatchObject({
      provider_payment_id: `in_${ref}`,
      subscription_id: `sub_${ref}`,
    });
    // Stripe's refund names only the PaymentIntent, which no sale carries and no link names: parked.
    const res = await w.send(f.programId, refundEvent('refund.updated', ref, { id: `re_${ref}`, amount: 10000 }));
    const parked = await w.waitForInbox(f.programId, res.body.id, 'processed');
    expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked', transactionId: `pi_${ref}` })]);
    const api = await w.h.request('/api/v1/track/refund', {
      body: { transaction_id: `in_${ref}`, refund_id: `re_${ref}` },
      headers: bearer(f.liveKey),
    });
    // The fixture's 463 tax is outside the commission base by default: 10% of 9 537 → 954.
    expect(api.body).toMatchObject({ success: true, status: 'reversed', deductionAmount: 954 });
  });

  test('test mode: a livemode:false refund of a test sale touches no production table, even when it arrives first', async () => {
    const { f, keys } = await setup();
    const ref = newRef('pi');
    const refund = await w.send(
      f.programId,
      refundEvent('refund.updated', ref, { id: `re_${ref}`, amount: 1000 }, false),
    );
    const parked = await w.waitForInbox(f.programId, refund.body.id, 'processed');
    expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
    await deliver(f.programId, stripeKit.payment({ ref, amountCents: 10000, keys, test: true }).event);
    // Kept until the test sale arrived, then answered as a test refund.
    const [row] = await w.list(f.programId, 'parked-refunds');
    expect(row).toMatchObject({
      status: 'applied',
      outcome: { kind: 'test', eventId: expect.any(Number), programId: f.programId },
    });
    for (const kind of ['sales', 'commissions', 'refunds'] as const)
      expect(await w.list(f.programId, kind)).toEqual([]);
    expect(await w.list(f.programId, 'test-events')).toHaveLength(1);
  });
});
