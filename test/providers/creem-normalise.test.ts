import { describe, expect, test } from 'vitest';
import type { RefundJob } from '../../src/core/jobs/refund-job.ts';
import type { SaleJob } from '../../src/core/jobs/sale-job.ts';
import { createCreemAdapter } from '../../src/providers/creem/adapter.ts';
import { CTX, NOW, TRACKER_METADATA } from './fixtures/clock.ts';
import { creemCheckout, creemEvent, creemRefund, creemSubscription } from './fixtures/creem.ts';

const adapter = createCreemAdapter();
const normalise = (event: unknown, testConnection = false) => adapter.normalise(event, { ...CTX, testConnection });

describe('creem normalise: checkout.completed', () => {
  test('a one-off checkout becomes one sale under the Creem transaction id', () => {
    const expected: SaleJob = {
      kind: 'sale',
      programId: 42,
      test: false,
      transactionId: 'tran_78fYacdKnQu3Bw3wOwtG60',
      amountCents: 2999,
      taxCents: 500,
      currency: 'USD',
      saleType: 'payment',
      lineItems: null,
      isRecurring: false,
      subscriptionId: null,
      subscriptionInterval: null,
      productId: 'prod_35PR89LmiAjsR8JJwO7uM7',
      occurredAt: '2026-02-28T07:52:06.979Z',
      provider: 'creem',
      providerPaymentId: 'ord_7ZKxZkpnNcs0d1TxbBPcr0',
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
    expect(normalise(creemEvent('checkout.completed', creemCheckout()))).toEqual({
      dedupeKey: 'evt_3AEBNwl6xjy2VWoNy17RV4',
      eventType: 'checkout.completed',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test('a checkout in Creem test mode (mode: test) is a test sale; so is any event verified by a test secret', () => {
    expect(normalise(creemEvent('checkout.completed', creemCheckout({}, {}, 'test'))).jobs[0]).toMatchObject({
      test: true,
    });
    expect(normalise(creemEvent('checkout.completed', creemCheckout()), true).jobs[0]).toMatchObject({ test: true });
  });

  test('a subscription checkout records the first payment with its subscription', () => {
    const checkout = creemCheckout(
      {
        subscription: { id: 'sub_6pC2lNB6joCRQIZ1aMrTpi', object: 'subscription', metadata: {} },
        product: { id: 'prod_m', billing_period: 'every-month' },
      },
      { type: 'recurring' },
    );
    expect(normalise(creemEvent('checkout.completed', checkout)).jobs[0]).toMatchObject({
      saleType: 'subscription',
      isRecurring: false,
      subscriptionId: 'sub_6pC2lNB6joCRQIZ1aMrTpi',
      subscriptionInterval: 'monthly',
      productId: 'prod_m',
    });
  });

  test.each([
    { label: 'an unpaid order', checkout: creemCheckout({}, { status: 'pending' }), reason: 'not_paid' },
    {
      label: 'an order without its id or transaction',
      checkout: creemCheckout({}, { transaction: null, id: null }),
      reason: 'missing_transaction_id',
    },
    {
      label: 'metadata tagged for another program',
      checkout: creemCheckout({ metadata: { ...TRACKER_METADATA, program_id: '7' } }),
      reason: 'program_mismatch',
    },
    { label: 'no order', checkout: creemCheckout({ order: null }), reason: 'missing_order_id' },
  ])('ignores $label → $reason', ({ checkout, reason }) => {
    expect(normalise(creemEvent('checkout.completed', checkout))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('creem normalise: subscription.paid', () => {
  test("the first period's payment is the checkout's sale: ignored here, whichever shape", () => {
    expect(normalise(creemEvent('subscription.paid', creemSubscription(), 'evt_sub_1'))).toMatchObject({
      jobs: [],
      ignoredReason: 'first_payment_recorded_by_checkout',
    });
    const documented = creemSubscription({ last_transaction: undefined });
    expect(normalise(creemEvent('subscription.paid', documented, 'evt_sub_1b')).ignoredReason).toBe(
      'first_payment_recorded_by_checkout',
    );
  });

  test('a later period (starting a month after the subscription) is a renewal under its transaction', () => {
    const renewal = creemSubscription({}, { id: 'tran_renewal', period_start: 1772265324184 + 30 * 86_400_000 });
    expect(normalise(creemEvent('subscription.paid', renewal, 'evt_sub_2')).jobs[0]).toMatchObject({
      transactionId: 'tran_renewal',
      amountCents: 2999,
      taxCents: 500,
      saleType: 'subscription',
      isRecurring: true,
      subscriptionId: 'sub_35c5ooVUuIUtru83zXjrjC',
      subscriptionInterval: 'monthly',
      customerKey: 'user_1234',
    });
  });

  test("the documented shape (last_transaction_id, no transaction object): a renewal at the product's price", () => {
    // docs.creem.io event types: the subscription.paid sample names `last_transaction_id` only.
    const documented = creemSubscription({
      last_transaction: undefined,
      last_transaction_id: 'tran_doc_renewal',
      current_period_start_date: '2026-03-30T07:55:24.184Z',
      last_transaction_date: '2026-03-30T07:55:24.184Z',
    });
    expect(normalise(creemEvent('subscription.paid', documented, 'evt_sub_3')).jobs).toEqual([
      expect.objectContaining({
        transactionId: 'tran_doc_renewal',
        amountCents: 2999,
        currency: 'USD',
        isRecurring: true,
      }),
    ]);
  });

  test('a subscription without its last transaction is ignored', () => {
    expect(
      normalise(
        creemEvent('subscription.paid', creemSubscription({ last_transaction: null, last_transaction_id: null })),
      ),
    ).toMatchObject({ ignoredReason: 'missing_transaction_id' });
  });
});

describe('creem normalise: refund.created', () => {
  test("a refund names the transaction's order as a second id of the sale", () => {
    expect(normalise(creemEvent('refund.created', creemRefund({ refund_amount: 1000 }))).jobs).toEqual([
      expect.objectContaining({
        transactionId: 'tran_78fYacdKnQu3Bw3wOwtG60',
        saleAlias: 'ord_7ZKxZkpnNcs0d1TxbBPcr0',
      }),
    ]);
  });

  test('a refund becomes a per-refund job on its transaction', () => {
    const expected: RefundJob = {
      kind: 'refund',
      origin: 'provider',
      programId: 42,
      transactionId: 'tran_78fYacdKnQu3Bw3wOwtG60',
      amount: { type: 'per_refund', cents: 1000 },
      refundId: 'ref_1mqUZAF4STf0CpHFzT5Qs0',
      refundReason: 'requested_by_customer',
      reason: 'refund',
      saleAlias: null,
      saleLookup: null,
      test: false,
      receivedAt: NOW.toISOString(),
    };
    const refund = creemRefund({ refund_amount: 1000 }, { order: null });
    expect(normalise(creemEvent('refund.created', refund, 'evt_2IW5Ur2LYdq3AQDgMyeV3j'))).toEqual({
      dedupeKey: 'evt_2IW5Ur2LYdq3AQDgMyeV3j',
      eventType: 'refund.created',
      jobs: [expected],
      ignoredReason: null,
    });
  });

  test('a refund in test mode is a test refund', () => {
    expect(normalise(creemEvent('refund.created', creemRefund({}, {}, 'test'))).jobs[0]).toMatchObject({ test: true });
  });

  test.each([
    { label: 'no transaction', refund: creemRefund({ transaction: null }), reason: 'missing_transaction_id' },
    { label: 'no amount', refund: creemRefund({ refund_amount: null }), reason: 'missing_amount' },
  ])('ignores $label → $reason', ({ refund, reason }) => {
    expect(normalise(creemEvent('refund.created', refund))).toMatchObject({ jobs: [], ignoredReason: reason });
  });
});

describe('creem normalise: checkout.completed as documented', () => {
  test('an order without a transaction (the documented sample) is recorded under the order id', () => {
    // docs.creem.io/learn/webhooks/event-types: the checkout.completed sample's order has no `transaction`.
    const checkout = creemCheckout({}, { transaction: undefined });
    expect(normalise(creemEvent('checkout.completed', checkout)).jobs[0]).toMatchObject({
      kind: 'sale',
      transactionId: 'ord_7ZKxZkpnNcs0d1TxbBPcr0',
      providerPaymentId: 'ord_7ZKxZkpnNcs0d1TxbBPcr0',
    });
  });
});

describe('creem normalise: dispute.created', () => {
  const dispute = (overrides: Record<string, unknown> = {}) => ({
    id: 'disp_4Gh8Jk2Lm',
    object: 'dispute',
    amount: 2999,
    currency: 'USD',
    transaction: { id: 'tran_78fYacdKnQu3Bw3wOwtG60', object: 'transaction', order: 'ord_7ZKxZkpnNcs0d1TxbBPcr0' },
    created_at: 1772265500000,
    mode: 'prod',
    ...overrides,
  });
  test('reverses the disputed amount as a chargeback keyed by the dispute id, found through its order too', () => {
    const jobs = normalise(creemEvent('dispute.created', dispute())).jobs;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      saleAlias: 'ord_7ZKxZkpnNcs0d1TxbBPcr0',
      transactionId: 'tran_78fYacdKnQu3Bw3wOwtG60',
      amount: { type: 'per_refund', cents: 2999 },
      refundId: 'disp_4Gh8Jk2Lm',
      reason: 'chargeback',
    });
  });
  test('without an amount: the rest of the sale; without a transaction: ignored', () => {
    expect(normalise(creemEvent('dispute.created', dispute({ amount: null }))).jobs[0]).toMatchObject({
      amount: { type: 'per_refund', cents: null },
    });
    expect(normalise(creemEvent('dispute.created', dispute({ transaction: null }))).ignoredReason).toBe(
      'missing_transaction_id',
    );
  });
});
