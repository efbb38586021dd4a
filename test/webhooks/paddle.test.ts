import { describe, expect, test } from 'vitest';
import { paddleAdjustment, paddleEvent } from '../providers/fixtures/paddle.ts';
import { loadPublished } from '../providers/fixtures/published.ts';
import { defineReceivingWebhookTests } from './define-receiving-webhook-tests.ts';
import { defineRefundLedgerWebhookTests } from './define-refund-ledger-webhook-tests.ts';
import { defineRefundWebhookTests } from './define-refund-webhook-tests.ts';
import { defineSaleWebhookTests } from './define-sale-webhook-tests.ts';
import { paddleKit } from './kits/paddle-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(paddleKit);
defineReceivingWebhookTests(w);
defineSaleWebhookTests(w);
defineRefundWebhookTests(w);
defineRefundLedgerWebhookTests(w);

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
    return paddleEvent(type, paddleAdjustment({ transaction_id: transactionId, totals, ...overrides }), {
      event_id: `evt_${newRef('e')}`,
    });
  };

  test('a refund waits in pending_approval (ignored) and applies once approved; a later update of it is skipped', async () => {
    const { f, transactionId } = await paidTransaction();
    const id = `adj_${newRef('a')}`;
    expect(
      await deliver(
        f.programId,
        adjustmentEvent('adjustment.created', transactionId, { id, status: 'pending_approval' }),
        'ignored',
      ),
    ).toMatchObject({ error: 'refund_not_approved' });
    await deliver(f.programId, adjustmentEvent('adjustment.updated', transactionId, { id, status: 'approved' }));
    const again = await deliver(
      f.programId,
      adjustmentEvent('adjustment.updated', transactionId, { id, status: 'approved' }),
    );
    expect(again.outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);
    expect(
      (await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents, r.deduction_cents]),
    ).toEqual([[id, 3000, 300]]);
  });

  test('credits and chargeback warnings are not refunds: ignored, commission untouched', async () => {
    const { f, transactionId } = await paidTransaction();
    for (const action of ['credit', 'chargeback_warning']) {
      expect(
        await deliver(
          f.programId,
          adjustmentEvent('adjustment.created', transactionId, { id: `adj_${newRef(action)}`, action }),
          'ignored',
        ),
      ).toMatchObject({ error: 'not_a_refund' });
    }
    expect((await w.list(f.programId, 'commissions'))[0]).toMatchObject({ status: 'pending', reversed_cents: 0 });
  });

  test('a refund of a test transaction (custom_data test_mode) stays out of production tables', async () => {
    const { f, transactionId } = await paidTransaction(true);
    // Adjustments carry no custom_data, so Paddle cannot flag this refund as a test itself.
    const row = await deliver(
      f.programId,
      adjustmentEvent('adjustment.updated', transactionId, { id: `adj_${newRef('t')}` }),
    );
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    for (const kind of ['sales', 'commissions', 'refunds'] as const)
      expect(await w.list(f.programId, kind)).toEqual([]);
    expect(await w.list(f.programId, 'test-events')).toEqual([
      expect.objectContaining({ transaction_id: transactionId }),
    ]);
  });
});

/** The Paddle Node SDK's notification mocks (fixtures/published/SOURCES.md), overlaid per scenario. */
describe('paddle: credit and chargebacks, on published notifications', () => {
  type Json = Record<string, unknown>;
  const publishedEvent = (name: string, data: Json) => {
    const event = loadPublished('paddle', name);
    return { ...event, event_id: `evt_${newRef('e')}`, data: { ...(event.data as Json), ...data } };
  };
  async function deliver(programId: number, event: object, status = 'processed') {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, status);
  }
  async function completed(totals: Json) {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const transactionId = `txn_${newRef('c')}`;
    const base = loadPublished('paddle', 'transaction-completed').data as { details: { totals: Json } };
    const custom_data = {
      tracker_click_id: customer.clickId,
      tracker_customer_key: customer.customerKey,
      program_id: String(f.programId),
    };
    await deliver(
      f.programId,
      publishedEvent('transaction-completed', {
        id: transactionId,
        custom_data,
        details: { ...base.details, totals: { ...base.details.totals, ...totals } },
      }),
    );
    const sale = await w.sale(f.programId, transactionId);
    return { f, transactionId, sale: sale!, commission: await w.commissionOf(f.programId, sale!.id) };
  }

  test('a credited upgrade pays commission on grand_total (total minus credit), without its tax', async () => {
    // 100.00 + 20.00 tax = 120.00; 60.00 of it paid from the customer's credit balance.
    const { sale, commission } = await completed({
      subtotal: '10000',
      tax: '2000',
      total: '12000',
      credit: '6000',
      grand_total: '6000',
      grand_total_tax: '1000',
      currency_code: 'USD',
    });
    // Base 6000 − 1000 = 5000 at 10% → 500 (on `total` it would have been 1000).
    expect(sale).toMatchObject({ amount_cents: 5000, tax_cents: 1000 });
    expect(commission).toMatchObject({ amount_cents: 500 });
  });

  test('a chargeback adjustment reverses the commission with reason chargeback; chargeback_reverse asks the advertiser to review, once', async () => {
    const { f, transactionId, sale, commission } = await completed({
      subtotal: '10000',
      tax: '0',
      total: '10000',
      credit: '0',
      grand_total: '10000',
      grand_total_tax: '0',
      currency_code: 'USD',
    });
    await w.h.admin('POST', `/programs/${f.programId}/commissions/${commission!.id}/approve`, {});
    expect(await w.balanceCents(f)).toBe(1000);

    const adjustmentId = `adj_${newRef('cb')}`;
    const totals = { subtotal: '10000', tax: '0', total: '10000', fee: '0', earnings: '10000', currency_code: 'USD' };
    const chargeback = (type: string) => ({
      ...publishedEvent(type === 'adjustment.created' ? 'adjustment-created' : 'adjustment-updated', {
        id: adjustmentId,
        transaction_id: transactionId,
        action: 'chargeback',
        type: 'full',
        status: 'approved',
        // Paddle's reason is free text; the commission still says `chargeback`.
        reason: 'The cardholder disputed the payment with their bank',
        totals,
        items: [],
      }),
    });
    const row = await deliver(f.programId, chargeback('adjustment.created'));
    expect(row.outcome).toEqual([
      expect.objectContaining({
        kind: 'applied',
        status: 'reversed',
        deductionCents: 1000,
        balanceDeductionCents: 1000,
      }),
    ]);
    expect(await w.commissionOf(f.programId, sale.id)).toMatchObject({
      status: 'reversed',
      reversed_cents: 1000,
      reason: 'chargeback',
    });
    expect(await w.list(f.programId, 'refunds')).toEqual([
      expect.objectContaining({ refund_id: adjustmentId, reason: 'chargeback', source: 'provider' }),
    ]);
    expect(await w.balanceCents(f)).toBe(0);
    // The same chargeback's adjustment.updated (another event) changes nothing.
    expect((await deliver(f.programId, chargeback('adjustment.updated'))).outcome).toEqual([
      expect.objectContaining({ kind: 'skipped' }),
    ]);

    const reverseId = `adj_${newRef('cbr')}`;
    const reverse = () =>
      publishedEvent('adjustment-updated', {
        id: reverseId,
        transaction_id: transactionId,
        action: 'chargeback_reverse',
        type: 'full',
        status: 'approved',
        totals,
        items: [],
      });
    expect((await deliver(f.programId, reverse())).outcome).toEqual([
      expect.objectContaining({ kind: 'review_requested', commissionId: commission!.id }),
    ]);
    expect((await deliver(f.programId, reverse())).outcome).toEqual([
      expect.objectContaining({ kind: 'already_requested' }),
    ]);
    // The reversal stands; the advertiser is asked once.
    expect(await w.commissionOf(f.programId, sale.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
    const reviews = (await w.list(f.programId, 'notifications')).filter(
      (n) => n.payload.review_reason === 'chargeback_won',
    );
    expect(reviews).toEqual([
      expect.objectContaining({
        kind: 'advertiser_manual_review',
        payload: expect.objectContaining({
          chargeback_id: null,
          decision_id: reverseId,
          reversed_by_chargeback_cents: 1000,
        }),
      }),
    ]);
  });

  test('a partial chargeback reduces the commission in proportion', async () => {
    const { f, transactionId, sale } = await completed({
      subtotal: '10000',
      tax: '0',
      total: '10000',
      credit: '0',
      grand_total: '10000',
      grand_total_tax: '0',
      currency_code: 'USD',
    });
    const totals = { subtotal: '2500', tax: '0', total: '2500', fee: '0', earnings: '2500', currency_code: 'USD' };
    await deliver(
      f.programId,
      publishedEvent('adjustment-created', {
        id: `adj_${newRef('p')}`,
        transaction_id: transactionId,
        action: 'chargeback',
        status: 'approved',
        totals,
      }),
    );
    expect(await w.commissionOf(f.programId, sale.id)).toMatchObject({ status: 'refunded', reversed_cents: 250 });
  });
});
