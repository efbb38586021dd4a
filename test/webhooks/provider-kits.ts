/**
 * Per-provider builders for end-to-end webhook tests: payloads shaped like real deliveries (the
 * unit-test fixtures, with ids, amounts and tracker keys filled in) and their signature headers,
 * computed at test time against the harness clock. One interface, so the common scenarios run
 * unchanged against Stripe, Paddle and Lemon Squeezy.
 */
import { randomBytes } from 'node:crypto';
import type { MetadataWebhookProvider } from '../../src/core/shared/vocabulary.ts';
import { checkoutSession, legacyInvoice, signStripe, stripeEvent, stripeRefund } from '../providers/fixtures/stripe.ts';
import {
  monthlyItem,
  paddleAdjustment,
  paddleEvent,
  paddleTransaction,
  signPaddle,
} from '../providers/fixtures/paddle.ts';
import {
  lemonSqueezyEvent,
  lemonSqueezyInvoice,
  lemonSqueezyOrder,
  signLemonSqueezy,
} from '../providers/fixtures/lemonsqueezy.ts';
import { polarEvent, polarOrder, polarRefund, signPolar } from '../providers/fixtures/polar.ts';
import { dodoEvent, dodoPayment, dodoRefund, signDodo } from '../providers/fixtures/dodo.ts';
import { creemCheckout, creemEvent, creemRefund, creemSubscription, signCreem } from '../providers/fixtures/creem.ts';

type Json = Record<string, unknown>;

/** Tracker keys as a merchant puts them into checkout metadata; `null` leaves them all out. */
export type TrackerKeys = {
  clickId?: string | null;
  customerKey?: string | null;
  programId?: number | string | null;
} | null;

/**
 * A provider payment event and the `transaction_id` its sale is recorded under. `secret` is set
 * when the provider tells test traffic apart only by the endpoint that signs it (Polar sandbox,
 * Dodo test mode): the event must be signed with the kit's `testSecret`.
 */
export type PaymentEvent = { event: Json; transactionId: string; secret?: string };

export type PaymentInput = { ref: string; amountCents: number; keys: TrackerKeys; test?: boolean };
export type SubscriptionInput = { ref: string; subscriptionId: string; amountCents: number; keys: TrackerKeys };
/**
 * One refund of the payment `ref`. Per-refund providers (Stripe, Paddle) send `amountCents` under
 * `refundId`; Lemon Squeezy sends only `totalCents`, the order's cumulative refunded amount.
 */
export type RefundInput = {
  ref: string;
  saleAmountCents: number;
  refundId: string;
  amountCents: number;
  totalCents: number;
  test?: boolean;
};

export interface ProviderKit {
  provider: MetadataWebhookProvider;
  secret: string;
  /** The sandbox/test endpoint's secret, added to the connection labelled `test`; null when payloads flag test mode themselves. */
  testSecret: string | null;
  /** A second valid secret of the provider's form, for rotation tests. */
  rotatedSecret: string;
  /** Signature headers for exactly these bytes, timestamped at `at` where the scheme has one. */
  sign(body: string, at: Date, secret?: string): Record<string, string>;
  /** Headers of a genuine signature whose timestamp is outside the tolerance; null when unsigned by time. */
  signExpired: ((body: string, at: Date) => Record<string, string>) | null;
  payment(input: PaymentInput): PaymentEvent;
  /** The first payment of a subscription. */
  subscriptionStart(input: SubscriptionInput): PaymentEvent;
  /** A later (renewal) payment of the subscription. */
  renewal(input: SubscriptionInput): PaymentEvent;
  refund(input: RefundInput): Json;
  /** A genuine event type the adapter does not handle. */
  unhandled(): Json;
}

const unique = () => randomBytes(6).toString('hex');
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

function metadataOf(keys: TrackerKeys): Record<string, string> {
  if (!keys) return {};
  const out: Record<string, string> = {};
  if (keys.clickId) out.tracker_click_id = keys.clickId;
  if (keys.customerKey) out.tracker_customer_key = keys.customerKey;
  if (keys.programId !== undefined && keys.programId !== null) out.program_id = String(keys.programId);
  return out;
}

export const stripeKit: ProviderKit = {
  provider: 'stripe',
  secret: 'whsec_e2e_test_secret_0123456789',
  testSecret: null,
  rotatedSecret: 'whsec_e2e_test_secret_0123456789-rotated',
  sign(body, at, secret = stripeKit.secret) {
    return { 'stripe-signature': signStripe(body, { timestamp: seconds(at), secret }) };
  },
  signExpired(body, at) {
    return { 'stripe-signature': signStripe(body, { timestamp: seconds(at) - 301, secret: stripeKit.secret }) };
  },
  payment({ ref, amountCents, keys, test = false }) {
    const session = checkoutSession({
      id: `cs_${ref}`,
      amount_subtotal: amountCents,
      amount_total: amountCents,
      payment_intent: `pi_${ref}`,
      metadata: metadataOf(keys),
      livemode: !test,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    });
    return {
      event: stripeEvent('checkout.session.completed', session, { id: `evt_${unique()}`, livemode: !test }),
      transactionId: `pi_${ref}`,
    };
  },
  subscriptionStart: (input) => stripeInvoice(input, 'subscription_create'),
  renewal: (input) => stripeInvoice(input, 'subscription_cycle'),
  refund({ ref, refundId, amountCents, test = false }) {
    const refund = stripeRefund({
      id: refundId,
      payment_intent: `pi_${ref}`,
      charge: `ch_${ref}`,
      amount: amountCents,
    });
    return stripeEvent('refund.updated', refund, { id: `evt_${unique()}`, livemode: !test });
  },
  unhandled() {
    return stripeEvent(
      'customer.created',
      { id: `cus_${unique()}`, object: 'customer', livemode: true },
      { id: `evt_${unique()}` },
    );
  },
};

/** Pre-basil invoice: it names its PaymentIntent, so its refunds find the sale. */
function stripeInvoice(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  billingReason: string,
): PaymentEvent {
  const invoice = legacyInvoice({
    id: `in_${ref}`,
    payment_intent: `pi_${ref}`,
    charge: `ch_${ref}`,
    subscription: subscriptionId,
    billing_reason: billingReason,
    amount_due: amountCents,
    amount_paid: amountCents,
    total: amountCents,
    subscription_details: { metadata: metadataOf(keys) },
  });
  return { event: stripeEvent('invoice.paid', invoice, { id: `evt_${unique()}` }), transactionId: `pi_${ref}` };
}

export const paddleKit: ProviderKit = {
  provider: 'paddle',
  secret: 'pdl_ntfset_01e2etest_s3cr3tKeyForTests',
  testSecret: null,
  rotatedSecret: 'pdl_ntfset_01e2etest_s3cr3tKeyForTests-rotated',
  sign(body, at, secret = paddleKit.secret) {
    return { 'paddle-signature': signPaddle(body, { ts: seconds(at), secret }) };
  },
  signExpired(body, at) {
    return { 'paddle-signature': signPaddle(body, { ts: seconds(at) - 301, secret: paddleKit.secret }) };
  },
  payment({ ref, amountCents, keys, test = false }) {
    const customData = { ...metadataOf(keys), ...(test ? { test_mode: true } : {}) };
    return {
      event: paddleEvent('transaction.completed', paddleTransactionOf(ref, amountCents, { custom_data: customData }), {
        event_id: `evt_${unique()}`,
      }),
      transactionId: `txn_${ref}`,
    };
  },
  subscriptionStart: (input) => paddleSubscription(input, 'web'),
  renewal: (input) => paddleSubscription(input, 'subscription_recurring'),
  refund({ ref, refundId, amountCents }) {
    const cents = String(amountCents);
    const adjustment = paddleAdjustment({
      id: refundId,
      transaction_id: `txn_${ref}`,
      items: [{ id: `adjitm_${refundId}`, item_id: `txnitm_${ref}`, type: 'partial', amount: cents }],
      totals: { subtotal: cents, tax: '0', total: cents, fee: '0', earnings: cents, currency_code: 'USD' },
    });
    return paddleEvent('adjustment.updated', adjustment, { event_id: `evt_${unique()}` });
  },
  unhandled() {
    return paddleEvent(
      'customer.created',
      { id: `ctm_${unique()}`, email: 'buyer@example.com', status: 'active' },
      { event_id: `evt_${unique()}` },
    );
  },
};

function paddleTransactionOf(ref: string, amountCents: number, overrides: Json): Json {
  const total = String(amountCents);
  return paddleTransaction({
    id: `txn_${ref}`,
    details: {
      totals: {
        subtotal: total,
        tax: '0',
        discount: '0',
        total,
        grand_total: total,
        fee: '0',
        earnings: total,
        credit: '0',
        balance: '0',
        currency_code: 'USD',
      },
    },
    ...overrides,
  });
}

function paddleSubscription(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  origin: string,
): PaymentEvent {
  // Paddle copies custom_data onto renewals; `null` here proves attribution by subscription alone.
  const transaction = paddleTransactionOf(ref, amountCents, {
    subscription_id: subscriptionId,
    origin,
    items: [monthlyItem()],
    custom_data: keys ? metadataOf(keys) : null,
  });
  return {
    event: paddleEvent('transaction.completed', transaction, { event_id: `evt_${unique()}` }),
    transactionId: `txn_${ref}`,
  };
}

/** Lemon Squeezy ids are integers; `ref` is hashed into one so the same ref gives the same id. */
function lemonSqueezyId(ref: string): string {
  let n = 0;
  for (const c of ref) n = (n * 31 + c.charCodeAt(0)) % 1_000_000_007;
  return String(n + 1);
}

function lemonSqueezyMeta(keys: TrackerKeys, test: boolean): Json {
  return { test_mode: test, custom_data: keys ? metadataOf(keys) : undefined };
}

export const lemonSqueezyKit: ProviderKit = {
  provider: 'lemonsqueezy',
  secret: 'ls_e2e_test_signing_secret',
  testSecret: null,
  rotatedSecret: 'ls_e2e_test_signing_secret-rotated',
  sign(body, _at, secret = lemonSqueezyKit.secret) {
    return { 'x-signature': signLemonSqueezy(body, secret) };
  },
  signExpired: null,
  payment({ ref, amountCents, keys, test = false }) {
    const id = lemonSqueezyId(ref);
    const order = lemonSqueezyOrder(
      { total: amountCents, subtotal: amountCents, tax: 0, currency: 'USD', test_mode: test },
      id,
    );
    return {
      event: lemonSqueezyEvent('order_created', order, lemonSqueezyMeta(keys, test)),
      transactionId: `ls-order-${id}`,
    };
  },
  // Lemon Squeezy records a subscription's first payment from its order (order-created.ts).
  subscriptionStart({ ref, amountCents, keys }) {
    return lemonSqueezyKit.payment({ ref, amountCents, keys });
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const id = lemonSqueezyId(ref);
    const invoice = lemonSqueezyInvoice(
      {
        subscription_id: Number(lemonSqueezyId(subscriptionId)),
        total: amountCents,
        subtotal: amountCents,
        tax: 0,
        billing_reason: 'renewal',
      },
      id,
    );
    return {
      event: lemonSqueezyEvent('subscription_payment_success', invoice, lemonSqueezyMeta(keys, false)),
      transactionId: `ls-invoice-${id}`,
    };
  },
  refund({ ref, saleAmountCents, totalCents, test = false }) {
    const order = lemonSqueezyOrder(
      {
        total: saleAmountCents,
        subtotal: saleAmountCents,
        tax: 0,
        currency: 'USD',
        test_mode: test,
        refunded_amount: totalCents,
        refunded: true,
        status: totalCents >= saleAmountCents ? 'refunded' : 'partial_refund',
        refunded_at: '2026-03-02T10:00:00.000000Z',
      },
      lemonSqueezyId(ref),
    );
    return lemonSqueezyEvent('order_refunded', order, { test_mode: test });
  },
  unhandled() {
    return lemonSqueezyEvent('license_key_created', {
      type: 'license-keys',
      id: lemonSqueezyId(unique()),
      attributes: { status: 'active', test_mode: false },
    });
  },
};

/** Polar: sales keyed by order id; sandbox traffic is what its `test` secret signs. */
export const polarKit: ProviderKit = {
  provider: 'polar',
  secret: 'polar_whs_e2e_live_secret_0123456789',
  testSecret: 'polar_whs_e2e_sandbox_secret_0123456789',
  rotatedSecret: 'polar_whs_e2e_live_secret_0123456789-rotated',
  sign(body, at, secret = polarKit.secret) {
    return signPolar(body, { timestamp: seconds(at), secret, id: `msg_${unique()}` });
  },
  signExpired(body, at) {
    return signPolar(body, { timestamp: seconds(at) - 301, secret: polarKit.secret });
  },
  payment({ ref, amountCents, keys, test = false }) {
    const order = polarOrder({
      id: `polar_ord_${ref}`,
      total_amount: amountCents,
      net_amount: amountCents,
      subtotal_amount: amountCents,
      discount_amount: 0,
      tax_amount: 0,
      metadata: metadataOf(keys),
    });
    return {
      event: polarEvent('order.paid', order),
      transactionId: `polar_ord_${ref}`,
      ...(test ? { secret: polarKit.testSecret! } : {}),
    };
  },
  subscriptionStart: (input) => polarSubscription(input, 'subscription_create'),
  renewal: (input) => polarSubscription(input, 'subscription_cycle'),
  refund({ ref, refundId, amountCents }) {
    return polarEvent(
      'refund.updated',
      polarRefund({ id: refundId, order_id: `polar_ord_${ref}`, amount: amountCents, tax_amount: 0 }),
    );
  },
  unhandled() {
    return polarEvent('customer.created', { id: `cus_${unique()}`, email: 'buyer@example.com', metadata: {} });
  },
};

function polarSubscription(
  { ref, subscriptionId, amountCents, keys }: SubscriptionInput,
  billingReason: string,
): PaymentEvent {
  const order = polarOrder({
    id: `polar_ord_${ref}`,
    total_amount: amountCents,
    net_amount: amountCents,
    subtotal_amount: amountCents,
    discount_amount: 0,
    tax_amount: 0,
    billing_reason: billingReason,
    subscription_id: subscriptionId,
    metadata: metadataOf(keys),
    subscription: {
      id: subscriptionId,
      metadata: metadataOf(keys),
      recurring_interval: 'month',
      recurring_interval_count: 1,
      status: 'active',
    },
  });
  return { event: polarEvent('order.paid', order), transactionId: `polar_ord_${ref}` };
}

/** Dodo: sales keyed by payment id; test-mode traffic is what its `test` secret signs. */
export const dodoKit: ProviderKit = {
  provider: 'dodo',
  secret: `whsec_${Buffer.from('dodo-e2e-live-secret-0123456789').toString('base64')}`,
  testSecret: `whsec_${Buffer.from('dodo-e2e-test-mode-secret-0123').toString('base64')}`,
  rotatedSecret: `whsec_${Buffer.from('dodo-e2e-rotated-secret-0123456').toString('base64')}`,
  sign(body, at, secret = dodoKit.secret) {
    // A secret that is not `whsec_<base64>` (the shared "another secret" case) signs as raw base64 of its text.
    const key = secret.startsWith('whsec_') ? secret : Buffer.from(secret).toString('base64');
    return signDodo(body, { timestamp: seconds(at), secret: key, id: `msg_${unique()}` });
  },
  signExpired(body, at) {
    return signDodo(body, { timestamp: seconds(at) - 301, secret: dodoKit.secret });
  },
  payment({ ref, amountCents, keys, test = false }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      settlement_amount: amountCents,
      metadata: metadataOf(keys),
    });
    return {
      event: dodoEvent('payment.succeeded', payment),
      transactionId: `pay_${ref}`,
      ...(test ? { secret: dodoKit.testSecret! } : {}),
    };
  },
  subscriptionStart({ ref, subscriptionId, amountCents, keys }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      subscription_id: subscriptionId,
      metadata: metadataOf(keys),
    });
    return { event: dodoEvent('payment.succeeded', payment), transactionId: `pay_${ref}` };
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const payment = dodoPayment({
      payment_id: `pay_${ref}`,
      total_amount: amountCents,
      tax: 0,
      subscription_id: subscriptionId,
      checkout_session_id: null,
      metadata: metadataOf(keys),
    });
    return { event: dodoEvent('payment.succeeded', payment), transactionId: `pay_${ref}` };
  },
  refund({ ref, refundId, amountCents, saleAmountCents, totalCents }) {
    return dodoEvent(
      'refund.succeeded',
      dodoRefund({
        refund_id: refundId,
        payment_id: `pay_${ref}`,
        amount: amountCents,
        is_partial: totalCents < saleAmountCents,
      }),
    );
  },
  unhandled() {
    return dodoEvent('subscription.active', {
      payload_type: 'Subscription',
      subscription_id: `sub_${unique()}`,
      status: 'active',
      metadata: {},
    });
  },
};

/** Creem: sales keyed by transaction id; test mode is the payload's `mode`. */
export const creemKit: ProviderKit = {
  provider: 'creem',
  secret: 'whsec_creem_e2e_secret_0123456789',
  testSecret: null,
  rotatedSecret: 'whsec_creem_e2e_secret_0123456789-rotated',
  sign(body, _at, secret = creemKit.secret) {
    return { 'creem-signature': signCreem(body, secret) };
  },
  signExpired: null,
  payment({ ref, amountCents, keys, test = false }) {
    const checkout = creemCheckout(
      { id: `ch_${ref}`, metadata: metadataOf(keys) },
      {
        id: `ord_${ref}`,
        transaction: `tran_${ref}`,
        amount: amountCents,
        sub_total: amountCents,
        amount_due: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
      },
      test ? 'test' : 'prod',
    );
    return { event: creemEvent('checkout.completed', checkout, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  subscriptionStart({ ref, subscriptionId, amountCents, keys }) {
    const checkout = creemCheckout(
      {
        id: `ch_${ref}`,
        metadata: metadataOf(keys),
        subscription: { id: subscriptionId, object: 'subscription', metadata: metadataOf(keys) },
      },
      {
        id: `ord_${ref}`,
        transaction: `tran_${ref}`,
        amount: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
        type: 'recurring',
      },
    );
    return { event: creemEvent('checkout.completed', checkout, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  renewal({ ref, subscriptionId, amountCents, keys }) {
    const startedAt = Date.parse('2026-02-28T07:55:24.184Z');
    const subscription = creemSubscription(
      { id: subscriptionId, metadata: keys ? metadataOf(keys) : {}, created_at: new Date(startedAt).toISOString() },
      {
        id: `tran_${ref}`,
        amount: amountCents,
        amount_paid: amountCents,
        tax_amount: 0,
        subscription: subscriptionId,
        period_start: startedAt + 31 * 86_400_000,
      },
    );
    return { event: creemEvent('subscription.paid', subscription, `evt_${unique()}`), transactionId: `tran_${ref}` };
  },
  refund({ ref, refundId, amountCents, test = false }) {
    return creemEvent(
      'refund.created',
      creemRefund(
        { id: refundId, refund_amount: amountCents },
        { id: `tran_${ref}`, order: `ord_${ref}` },
        test ? 'test' : 'prod',
      ),
      `evt_${unique()}`,
    );
  },
  unhandled() {
    return creemEvent(
      'subscription.canceled',
      { id: `sub_${unique()}`, object: 'subscription', status: 'canceled', mode: 'prod' },
      `evt_${unique()}`,
    );
  },
};

/**
 * Every metadata provider's kit: typed by the provider list, so a new provider needs its kit here.
 * The VietQR gateways (PayOS, SePay) carry no metadata and have their own tests (payos.test.ts, sepay.test.ts).
 */
export const PROVIDER_KITS: Record<MetadataWebhookProvider, ProviderKit> = {
  stripe: stripeKit,
  paddle: paddleKit,
  lemonsqueezy: lemonSqueezyKit,
  polar: polarKit,
  dodo: dodoKit,
  creem: creemKit,
};
