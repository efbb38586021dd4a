/**
 * Stripe end to end on current API versions, with the objects Stripe publishes (stripe/openapi
 * fixtures): basil subscription invoices linked to their PaymentIntents by `invoice_payment.paid`,
 * `charge.refunded` alone and alongside `refund.*`, and disputes.
 */
import { describe, expect, test } from 'vitest';
import { bearer, type Fixture } from '../helpers/harness.ts';
import { published } from '../providers/fixtures/published.ts';
import { stripeKit } from './provider-kits.ts';
import { basilEvent, keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

type Json = Record<string, unknown>;
const w = useWebhookHarness(stripeKit);

const event = basilEvent;

async function deliver(programId: number, body: Json, status = 'processed') {
  const res = await w.send(programId, body);
  expect(res.status).toBe(200);
  return w.waitForInbox(programId, res.body.id, status);
}

async function setup() {
  const f = await w.newProgram();
  const customer = await w.newCustomer(f);
  return { f, keys: keysOf(f, customer) };
}

const metadataOf = (keys: ReturnType<typeof keysOf>) => ({
  tracker_click_id: keys.clickId,
  tracker_customer_key: keys.customerKey,
  program_id: String(keys.programId),
});

/** A paid basil invoice: no PaymentIntent anywhere, tax in `total_taxes`. */
function basilInvoicePaid(ref: string, keys: ReturnType<typeof keysOf>, amountPaid: number, tax: number) {
  const invoice = published('stripe', 'invoice');
  return event('invoice.paid', {
    ...invoice,
    id: `in_${ref}`,
    status: 'paid',
    billing_reason: 'subscription_create',
    amount_due: amountPaid,
    amount_paid: amountPaid,
    amount_remaining: 0,
    total: amountPaid,
    total_taxes: [
      {
        amount: tax,
        tax_behavior: 'exclusive',
        tax_rate_details: null,
        taxability_reason: 'standard_rated',
        taxable_amount: amountPaid - tax,
        type: 'tax_rate_details',
      },
    ],
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { metadata: metadataOf(keys), subscription: `sub_${ref}` },
    },
  });
}
const invoicePaymentPaid = (ref: string) =>
  event(
    'invoice_payment.paid',
    published('stripe', 'invoice-payment', {
      id: `inpay_${ref}`,
      invoice: `in_${ref}`,
      status: 'paid',
      payment: { type: 'payment_intent', payment_intent: `pi_${ref}` },
    }),
  );
const refundObject = (ref: string, id: string, amount: number) =>
  published('stripe', 'refund', { id, amount, payment_intent: `pi_${ref}`, charge: `ch_${ref}`, status: 'succeeded' });
const chargeRefunded = (ref: string, amount: number, refunds: Json[]) => {
  const charge = published('stripe', 'charge');
  return event('charge.refunded', {
    ...charge,
    id: `ch_${ref}`,
    payment_intent: `pi_${ref}`,
    amount,
    amount_captured: amount,
    refunded: true,
    amount_refunded: refunds.reduce((sum, r) => sum + (r.amount as number), 0),
    refunds: { ...(charge.refunds as object), data: refunds },
  });
};
const dispute = (type: string, ref: string, status: string, amount: number) =>
  event(
    type,
    published('stripe', 'dispute', {
      id: `dp_${ref}`,
      charge: `ch_${ref}`,
      payment_intent: `pi_${ref}`,
      amount,
      status,
    }),
  );

/** A sale recorded with a checkout (PaymentIntent id) for a fresh customer. */
async function checkoutSale(f: Fixture, ref: string, amountCents: number) {
  const customer = await w.newCustomer(f);
  await deliver(f.programId, stripeKit.payment({ ref, amountCents, keys: keysOf(f, customer) }).event);
  return `pi_${ref}`;
}

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

describe('stripe charge.refunded', () => {
  test('alone (API versions before 2024-10-28): every refund of the list applies once, by its own id and amount', async () => {
    const { f } = await setup();
    const ref = newRef('c');
    const pi = await checkoutSale(f, ref, 10000);
    const first = await deliver(f.programId, chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}_1`, 2000)]));
    expect(first.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 200 }),
    ]);
    // The second event's list repeats the first refund: skipped by its id, the new one applies.
    const second = await deliver(
      f.programId,
      chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}_2`, 3000), refundObject(ref, `re_${ref}_1`, 2000)]),
    );
    expect(second.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 300 }),
      expect.objectContaining({ kind: 'skipped', reason: `refund_id re_${ref}_1 already applied` }),
    ]);
    expect((await w.sale(f.programId, pi))?.refunded_cents).toBe(5000);
    expect((await w.list(f.programId, 'refunds')).map((r) => [r.refund_id, r.applied_cents]).sort()).toEqual([
      [`re_${ref}_1`, 2000],
      [`re_${ref}_2`, 3000],
    ]);
  });

  test.each(['charge.refunded first', 'refund.created first'])(
    'with refund.created also enabled (%s): one effect per Stripe refund',
    async (order) => {
      const { f } = await setup();
      const ref = newRef('c');
      const pi = await checkoutSale(f, ref, 10000);
      const viaCharge = chargeRefunded(ref, 10000, [refundObject(ref, `re_${ref}`, 4000)]);
      const viaRefund = event('refund.created', refundObject(ref, `re_${ref}`, 4000));
      const [a, b] = order === 'charge.refunded first' ? [viaCharge, viaRefund] : [viaRefund, viaCharge];
      expect((await deliver(f.programId, a)).outcome).toEqual([
        expect.objectContaining({ kind: 'applied', deductionCents: 400 }),
      ]);
      expect((await deliver(f.programId, b)).outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);
      expect((await w.sale(f.programId, pi))?.refunded_cents).toBe(4000);
      expect(await w.list(f.programId, 'refunds')).toHaveLength(1);
    },
  );
});

describe('stripe disputes', () => {
  test('funds withdrawn reverses the commission with reason chargeback; a won dispute asks the advertiser to review, once', async () => {
    const { f } = await setup();
    const ref = newRef('d');
    const pi = await checkoutSale(f, ref, 10000);
    const sale = await w.sale(f.programId, pi);
    const commission = await w.commissionOf(f.programId, sale!.id);
    await w.h.admin('POST', `/programs/${f.programId}/commissions/${commission!.id}/approve`, {});
    expect(await w.balanceCents(f)).toBe(1000);

    const withdrawn = await deliver(
      f.programId,
      dispute('charge.dispute.funds_withdrawn', ref, 'needs_response', 10000),
    );
    expect(withdrawn.outcome).toEqual([
      expect.objectContaining({
        kind: 'applied',
        status: 'reversed',
        deductionCents: 1000,
        balanceDeductionCents: 1000,
      }),
    ]);
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({
      status: 'reversed',
      reversed_cents: 1000,
      reason: 'chargeback',
    });
    expect(await w.list(f.programId, 'refunds')).toEqual([
      expect.objectContaining({ refund_id: `dp_${ref}`, reason: 'chargeback', source: 'provider' }),
    ]);
    expect(await w.balanceCents(f)).toBe(0);
    // A redelivery of the withdrawal (another event id, same dispute) changes nothing.
    expect(
      (await deliver(f.programId, dispute('charge.dispute.funds_withdrawn', ref, 'needs_response', 10000))).outcome,
    ).toEqual([expect.objectContaining({ kind: 'skipped' })]);

    const reinstated = await deliver(f.programId, dispute('charge.dispute.funds_reinstated', ref, 'won', 10000));
    expect(reinstated.outcome).toEqual([
      expect.objectContaining({ kind: 'review_requested', commissionId: commission!.id }),
    ]);
    const closed = await deliver(f.programId, dispute('charge.dispute.closed', ref, 'won', 10000));
    expect(closed.outcome).toEqual([expect.objectContaining({ kind: 'already_requested' })]);
    // The reversal stands; the advertiser is told, once, and the notification is delivered.
    expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
    const reviews = (await w.list(f.programId, 'notifications')).filter(
      (n) => n.payload.review_reason === 'chargeback_won',
    );
    expect(reviews).toEqual([
      expect.objectContaining({
        kind: 'advertiser_manual_review',
        commission_id: commission!.id,
        payload: expect.objectContaining({ chargeback_id: `dp_${ref}`, reversed_by_chargeback_cents: 1000 }),
      }),
    ]);
    await waitFor(() => w.h.sent.some((n) => n.id === reviews[0]!.id));
  });

  test('a lost dispute changes nothing more; a won inquiry that withdrew nothing has nothing to review', async () => {
    const { f } = await setup();
    const ref = newRef('d');
    await checkoutSale(f, ref, 10000);
    expect(await deliver(f.programId, dispute('charge.dispute.closed', ref, 'lost', 10000), 'ignored')).toMatchObject({
      error: 'dispute_not_won',
    });
    expect((await deliver(f.programId, dispute('charge.dispute.closed', ref, 'won', 10000))).outcome).toEqual([
      { kind: 'nothing_to_review', reason: 'chargeback_not_applied' },
    ]);
    expect(await w.list(f.programId, 'refunds')).toEqual([]);
  });
});
