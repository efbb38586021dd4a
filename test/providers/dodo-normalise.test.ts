import { describe, expect, test } from 'vitest';
import type { RefundJob } from '../../src/core/jobs/refund-job.ts';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { createDodoAdapter } from '../../src/providers/dodo/adapter.ts';
import { CTX, NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { dodoDispute, dodoEvent, dodoPayment, dodoRefund } from './fixtures/dodo.ts';

const adapter = createDodoAdapter();
const normalise = (event: unknown, testConnection = false) => adapter.normalise(event, { ...CTX, testConnection });

describe('dodo normalise: payment.succeeded', () => {
  test('a one-off payment becomes one sale under the payment id, tax included and reported', () => {
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: 'pay_2IjeQm4hqU6RA4Z4kwDee',
      amountCents: 5300,
      taxCents: 300,
      currency: 'USD',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: 'pdt_9Xy8Wv7',
      occurredAt: '2026-03-02T09:59:58.000Z',
      provider: 'dodo',
      providerPaymentId: 'pay_2IjeQm4hqU6RA4Z4kwDee',
      customerKey: 'user_1234',
      clickId: 'clk_7Hq2x',
      visitorId: 'vis_9f8e',
      origin: 'provider',
      couponCodes: null,
      couponLookup: null,
      aliasLookup: null,
      orderLookup: null,
      additionalData: null,
      receivedAt: NOW.toISOString(),
    };
    expect(normalise(dodoEvent('payment.succeeded', dodoPayment()))).toEqual({
      dedupeKey: 'payment.succeeded-pay_2IjeQm4hqU6RA4Z4kwDee',
      eventType: 'payment.succeeded',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test.each([
    {
      label: 'first subscription payment (through a checkout session) → subscription sale, not recurring',
      payment: dodoPayment({ subscription_id: 'sub_1Ab' }),
      job: { saleType: 'subscription', isRecurring: false, subscriptionId: 'sub_1Ab' },
    },
    {
      label: 'renewal (charged without a checkout session) → recurring',
      payment: dodoPayment({ subscription_id: 'sub_1Ab', checkout_session_id: null }),
      job: { saleType: 'subscription', isRecurring: true },
    },
    {
      label: 'several products → no single product',
      payment: dodoPayment({
        product_cart: [
          { product_id: 'a', quantity: 1 },
          { product_id: 'b', quantity: 1 },
        ],
      }),
      job: { productId: null },
    },
  ])('$label', ({ payment, job }) => {
    const result = normalise(dodoEvent('payment.succeeded', payment));
    expect(result.ignoredReason).toBeNull();
    expect(result.jobs[0]).toMatchObject(job);
  });

  test('an event verified by a test secret is a test sale', () => {
    expect(normalise(dodoEvent('payment.succeeded', dodoPayment()), true).jobs[0]).toMatchObject({ test: true });
  });

  test.each([
    { label: 'a payment that did not succeed', payment: dodoPayment({ status: 'failed' }), reason: 'not_paid' },
    { label: 'a zero total', payment: dodoPayment({ total_amount: 0 }), reason: 'zero_amount' },
    {
      label: 'metadata tagged for another program',
      payment: dodoPayment({ metadata: { ...TRACKER_METADATA, program_id: '7' } }),
      reason: 'program_mismatch',
    },
    { label: 'no payment id', payment: dodoPayment({ payment_id: null }), reason: 'missing_transaction_id' },
  ])('ignores $label → $reason', ({ payment, reason }) => {
    expect(normalise(dodoEvent('payment.succeeded', payment))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('dodo normalise: refund.succeeded', () => {
  test('a partial refund becomes a per-refund job on the payment, with its own amount and id', () => {
    const expected: RefundJob = {
      kind: 'refund',
      origin: 'provider',
      programId: 42,
      transactionId: 'pay_2IjeQm4hqU6RA4Z4kwDee',
      amount: { type: 'per_refund', cents: 2000 },
      refundId: 'ref_8Lm3Np5Qr',
      refundReason: 'Customer asked for a partial refund',
      reason: 'refund',
      saleAlias: null,
      saleLookup: null,
      test: false,
      receivedAt: NOW.toISOString(),
    };
    expect(normalise(dodoEvent('refund.succeeded', dodoRefund()))).toEqual({
      dedupeKey: 'refund.succeeded-ref_8Lm3Np5Qr',
      eventType: 'refund.succeeded',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test('a full refund without an amount refunds the rest of the sale', () => {
    expect(
      normalise(dodoEvent('refund.succeeded', dodoRefund({ amount: null, is_partial: false }))).jobs[0],
    ).toMatchObject({ amount: { type: 'per_refund', cents: null } });
  });

  test.each([
    { label: 'a partial refund without an amount', refund: dodoRefund({ amount: null }), reason: 'missing_amount' },
    {
      label: 'a refund without a payment id',
      refund: dodoRefund({ payment_id: null }),
      reason: 'missing_transaction_id',
    },
    {
      label: 'a refund that did not succeed',
      refund: dodoRefund({ status: 'failed' }),
      reason: 'refund_not_succeeded',
    },
  ])('ignores $label → $reason', ({ refund, reason }) => {
    expect(normalise(dodoEvent('refund.succeeded', refund))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('dodo normalise: disputes', () => {
  const chargeback = (cents: number | null) => ({
    kind: 'refund',
    origin: 'provider',
    transactionId: 'pay_2IjeQm4hqU6RA4Z4kwDee',
    amount: { type: 'per_refund', cents },
    refundId: 'dsp_5Tz9Ab2Cd',
    reason: 'chargeback',
  });
  test.each(['dispute.opened', 'dispute.lost', 'dispute.accepted', 'dispute.expired'])(
    '%s reverses the disputed amount as a chargeback keyed by the dispute id',
    (type) => {
      const r = normalise(dodoEvent(type, dodoDispute({ dispute_status: type.replace('.', '_') })));
      expect(r).toMatchObject({ dedupeKey: `${type}-dsp_5Tz9Ab2Cd`, ignoredReason: null });
      expect(r.jobs).toEqual([expect.objectContaining(chargeback(5300))]);
    },
  );
  test.each([
    ['a decimal amount in major units', { amount: '53.00' }, 5300],
    ['a decimal VND amount', { amount: '150000.00', currency: 'VND' }, 150000],
    ['an unreadable amount: the rest of the sale', { amount: 'n/a' }, null],
  ] as const)('%s', (_, overrides, cents) => {
    expect(normalise(dodoEvent('dispute.lost', dodoDispute(overrides))).jobs).toEqual([
      expect.objectContaining(chargeback(cents)),
    ]);
  });
  test.each(['dispute.won', 'dispute.cancelled'])('%s asks for a review, never re-credits', (type) => {
    expect(normalise(dodoEvent(type, dodoDispute({ dispute_status: 'dispute_won' }))).jobs).toEqual([
      expect.objectContaining({
        kind: 'dispute_won',
        transactionId: 'pay_2IjeQm4hqU6RA4Z4kwDee',
        chargebackId: 'dsp_5Tz9Ab2Cd',
      }),
    ]);
  });
  test('a dispute without its payment id is ignored with the reason', () => {
    expect(normalise(dodoEvent('dispute.lost', dodoDispute({ payment_id: null })))).toMatchObject({
      jobs: [],
      ignoredReason: 'missing_transaction_id',
    });
  });
  test('dispute.challenged decides nothing: not handled', () => {
    expect(normalise(dodoEvent('dispute.challenged', dodoDispute())).ignoredReason).toBe('unhandled_event_type');
  });
});
