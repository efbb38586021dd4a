/**
 * Stripe end to end on current API versions, with the objects Stripe publishes (stripe/openapi
 * fixtures): basil subscription invoices linked to their PaymentIntents by `invoice_payment.paid`.
 * `charge.refunded` and disputes: stripe-charge-refunds-and-disputes.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { bearer, type Fixture } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { basilEvent as event, keysOf, newRef } from './scenario-steps.ts';
import { basilInvoicePaid, invoicePaymentPaid, refundObject, stripeDeliverySteps } from './stripe-published-events.ts';
import { useWebhookHarness } from './webhook-harness.ts';

type Json = Record<string, unknown>;
const w = useWebhookHarness(stripeKit);
const { deliver, setup } = stripeDeliverySteps(w);

describe('stripe basil subscriptions: a Stripe refund reduces the commission exactly like POST /track/refund', () => {
  // 12 000 paid with 2 000 tax: the commission base is 10 000 (tax excluded by default), 10% → 1 000.
  // Stripe refunds 6 000 of the payment (half); the API refunds 5 000 of the sale (half).
  async function expectSameAsApi(f: Fixture, stripeRef: string) {
    const keys = keysOf(f, await w.newCustomer(f));
    const apiRef = newRef('api');
    await deliver(f.programId, basilInvoicePaid(apiRef, keys, 12000, 2000));
    const api = await w.h.request('/api/v1/track/refund', {
      body: { transaction_id: `in_${apiRef}`, refund_amount_cents: 5000, refund_id: `re_${apiRef}`, reason: 'refund' },
      headers: bearer(f.liveKey),
    });
    expect(api.body).toMatchObject({ success: true, status: 'refunded', deductionAmount: 500 });

    const viaStripe = await w.sale(f.programId, `in_${stripeRef}`);
    const viaApi = await w.sale(f.programId, `in_${apiRef}`);
    expect(viaStripe).toMatchObject({ amount_cents: 10000, tax_cents: 2000, paid_cents: 12000, refunded_cents: 5000 });
    expect(viaApi).toMatchObject({ amount_cents: 10000, refunded_cents: 5000 });
    const pick = (c: Json | undefined) => ({
      status: c?.status,
      amount_cents: c?.amount_cents,
      reversed_cents: c?.reversed_cents,
      reason: c?.reason,
    });
    expect(pick(await w.commissionOf(f.programId, viaStripe!.id))).toEqual(
      pick(await w.commissionOf(f.programId, viaApi!.id)),
    );
    expect(await w.commissionOf(f.programId, viaStripe!.id)).toMatchObject({
      status: 'refunded',
      amount_cents: 1000,
      reversed_cents: 500,
      reason: 'refund',
    });
  }

  test('invoice.paid, then invoice_payment.paid, then refund.created', async () => {
    const { f, keys } = await setup();
    const ref = newRef('b');
    await deliver(f.programId, basilInvoicePaid(ref, keys, 12000, 2000));
    const link = await deliver(f.programId, invoicePaymentPaid(ref));
    expect(link.outcome).toEqual([{ kind: 'linked', alias: `pi_${ref}`, transactionId: `in_${ref}` }]);
    const refund = await deliver(f.programId, event('refund.created', refundObject(ref, `re_${ref}`, 6000)));
    expect(refund.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 500 }),
    ]);
    await expectSameAsApi(f, ref);
  });

  /** The refund event's parked row, once it says `status`. */
  const parkedRow = async (programId: number, status: string) => {
    let row: Record<string, unknown> | undefined;
    await waitFor(async () => {
      row = (await w.list(programId, 'parked-refunds'))[0];
      return row?.status === status;
    });
    return row!;
  };

  test('the refund first: parked until invoice_payment.paid links it days later, then applied once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('b');
    await deliver(f.programId, basilInvoicePaid(ref, keys, 12000, 2000));
    const res = await w.send(f.programId, event('refund.created', refundObject(ref, `re_${ref}`, 6000)));
    const parked = await w.waitForInbox(f.programId, res.body.id, 'processed');
    expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked', transactionId: `pi_${ref}` })]);
    const start = w.h.clock.now;
    w.h.clock.advanceDays(3);
    try {
      await deliver(f.programId, invoicePaymentPaid(ref));
      expect(await parkedRow(f.programId, 'applied')).toMatchObject({
        outcome: expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 500 }),
      });
      // A redelivered link changes nothing.
      expect((await deliver(f.programId, invoicePaymentPaid(ref))).outcome).toEqual([
        expect.objectContaining({ kind: 'already_linked' }),
      ]);
      await expectSameAsApi(f, ref);
    } finally {
      w.h.clock.now = start;
    }
  });

  test('a refund whose link does not come is listed as unmatched; the link arriving later still applies it once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('b');
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000, 0));
    const res = await w.send(f.programId, event('refund.updated', refundObject(ref, `re_${ref}`, 10000)));
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    const start = w.h.clock.now;
    w.h.clock.advanceDays(w.h.ctx.config.PARKED_REFUND_DAYS + 1);
    try {
      await parkedRow(f.programId, 'unmatched');
      await deliver(f.programId, invoicePaymentPaid(ref));
      expect(await parkedRow(f.programId, 'applied')).toMatchObject({
        outcome: expect.objectContaining({ kind: 'applied', status: 'reversed', deductionCents: 1000 }),
      });
      expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents)).toEqual([1000]);
    } finally {
      w.h.clock.now = start;
    }
  });

  test('the link before the invoice: the refund is parked, and applied once the sale is recorded', async () => {
    const { f, keys } = await setup();
    const ref = newRef('b');
    await deliver(f.programId, invoicePaymentPaid(ref));
    const res = await w.send(f.programId, event('refund.created', refundObject(ref, `re_${ref}`, 3000)));
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000, 0));
    // The sale names the invoice, the parked refund the PaymentIntent: the sweeper joins them through the link.
    expect(await parkedRow(f.programId, 'applied')).toMatchObject({
      outcome: expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 300 }),
    });
  });
});
