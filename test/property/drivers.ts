/**
 * How each provider sends what a scenario does (./scenario.ts): the webhook kits' payment and
 * refund builders (../webhooks/kits, built from each provider's published payloads, sources beside
 * those fixtures) and dispute events built from the same fixture modules; PayOS, SePay and the
 * direct API, whose refunds are `POST /api/v1/track/refund` calls.
 */
import type { Fixture } from '../helpers/harness.ts';
import { bearer } from '../helpers/harness.ts';
import type { HarnessKit, WebhookHarness } from '../webhooks/webhook-harness.ts';
import type { ProviderKit, Json, TrackerKeys } from '../webhooks/kits/kit.ts';
import { unique } from '../webhooks/kits/kit.ts';
import { chargeRefunded, dispute as stripeDispute, refundObject } from '../webhooks/stripe-published-events.ts';
import { polarEvent, polarOrder } from '../providers/fixtures/polar.ts';
import { paddleAdjustment, paddleEvent } from '../providers/fixtures/paddle.ts';
import { dodoDispute, dodoEvent } from '../providers/fixtures/dodo.ts';
import { creemEvent } from '../providers/fixtures/creem.ts';
import {
  PAYOS_CHECKSUM_KEY,
  payosWebhook,
  SEPAY_API_KEY,
  sepayAuth,
  sepayTransfer,
} from '../providers/fixtures/vietqr.ts';
import type { Spec, Traits } from './scenario.ts';

/** One run's program, customer and provider-side reference. */
export type RunContext = {
  w: WebhookHarness<HarnessKit>;
  f: Fixture;
  ref: string;
  keys: TrackerKeys;
  customerKey: string;
  saleCents: number;
  /** The scenario's events (Stripe's refund lists name earlier refunds). */
  specs: Spec[];
  /** A number unique to this run (PayOS order codes, SePay transfer ids). */
  serial: number;
};

/** A request as sent: a signed webhook (acknowledged, then processed by the queue) or an API call. */
export type Outgoing = { path: string; body: string; headers: Record<string, string>; api: boolean };

export type Driver = {
  /** The suite's name: the provider, or `api`. */
  name: string;
  kit: HarnessKit;
  traits: Traits;
  currency: string;
  /** Runs before anything is sent (PayOS and SePay: the order's registration). */
  prepare?(c: RunContext): Promise<void>;
  transactionId(c: RunContext): string;
  /** Builds an event (anew for its first delivery and every reissue: `reissue` true). */
  build(c: RunContext, spec: Spec, reissue: boolean): Outgoing;
};

const webhook = (c: RunContext, event: Json | string): Outgoing => {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  const kit = c.w.kit;
  return {
    path: `/api/v1/webhooks/${kit.provider}/${c.f.programId}`,
    body,
    headers: kit.sign(body, c.w.h.clock.now),
    api: false,
  };
};

const apiCall = (c: RunContext, path: string, body: Json): Outgoing => ({
  path,
  body: JSON.stringify(body),
  headers: bearer(c.f.liveKey),
  api: true,
});

const apiRefund = (c: RunContext, transactionId: string, spec: Extract<Spec, { role: 'refund' }>) =>
  apiCall(c, '/api/v1/track/refund', {
    transaction_id: transactionId,
    refund_amount_cents: spec.amountCents,
    refund_id: `${c.ref}-${spec.key}`,
  });

type DisputeSpec = Exclude<Spec, { role: 'sale' } | { role: 'refund' } | { role: 'total' }>;

/** Dispute events per provider, each naming the run's sale as the provider does. */
const disputes: Record<string, (c: RunContext, spec: DisputeSpec) => Json> = {
  stripe(c, spec) {
    const amount = spec.role === 'chargeback' ? spec.amountCents : c.saleCents;
    if (spec.role === 'chargeback')
      return stripeDispute('charge.dispute.funds_withdrawn', c.ref, 'needs_response', amount);
    if (spec.role === 'won' && spec.stage === 'reinstated')
      return stripeDispute('charge.dispute.funds_reinstated', c.ref, 'won', amount);
    return stripeDispute('charge.dispute.closed', c.ref, spec.role === 'won' ? 'won' : 'lost', amount);
  },
  paddle(c, spec) {
    const cents = String(spec.role === 'chargeback' ? spec.amountCents : c.saleCents);
    const reverse = spec.role === 'won';
    const adjustment = paddleAdjustment({
      id: reverse ? `adj_${c.ref}_rev` : `adj_${c.ref}_cb`,
      transaction_id: `txn_${c.ref}`,
      action: reverse ? 'chargeback_reverse' : 'chargeback',
      type: 'full',
      reason: 'The cardholder disputed the payment with their bank',
      items: [],
      totals: { subtotal: cents, tax: '0', total: cents, fee: '0', earnings: cents, currency_code: 'USD' },
    });
    return paddleEvent('adjustment.updated', adjustment, { event_id: `evt_${unique()}` });
  },
  dodo(c, spec) {
    const [type, status] =
      spec.role === 'won'
        ? ['dispute.won', 'dispute_won']
        : spec.role === 'chargeback' && spec.stage === 'lost'
          ? ['dispute.lost', 'dispute_lost']
          : ['dispute.opened', 'dispute_opened'];
    const amount = spec.role === 'chargeback' ? spec.amountCents : c.saleCents;
    return dodoEvent(
      type,
      dodoDispute({
        dispute_id: `dsp_${c.ref}`,
        payment_id: `pay_${c.ref}`,
        amount: String(amount),
        dispute_status: status,
      }),
    );
  },
  creem(c, spec) {
    // Creem's dispute object (https://docs.creem.io/learn/webhooks/event-types, `dispute.created`).
    const amount = spec.role === 'chargeback' ? spec.amountCents : c.saleCents;
    const dispute = {
      id: `disp_${c.ref}`,
      object: 'dispute',
      amount,
      currency: 'USD',
      transaction: { id: `tran_${c.ref}`, object: 'transaction', order: `ord_${c.ref}` },
      mode: 'prod',
    };
    return creemEvent('dispute.created', dispute, `evt_${unique()}`);
  },
};

/** Stripe's `charge.refunded` after refund `spec`: the charge's list holds every refund through it. */
function stripeChargeRefunded(c: RunContext, spec: Extract<Spec, { role: 'refund' }>): Json {
  const through = Number(spec.key.slice(1));
  const refunds = Array.from({ length: through + 1 }, (_, i) => i)
    .reverse()
    .map((i) => refundObject(c.ref, `${c.ref}-r${i}`, amountOf(c, `r${i}`)));
  return chargeRefunded(c.ref, c.saleCents, refunds);
}

const amountOf = (c: RunContext, key: string) =>
  c.specs.find((x): x is Extract<Spec, { role: 'refund' }> => x.role === 'refund' && x.key === key)!.amountCents;

/** Polar's `order.refunded`: the order with its running refunded total. */
const polarOrderRefunded = (c: RunContext, totalCents: number): Json =>
  polarEvent(
    'order.refunded',
    polarOrder({
      id: `polar_ord_${c.ref}`,
      status: totalCents >= c.saleCents ? 'refunded' : 'partially_refunded',
      refunded_amount: totalCents,
      refunded_tax_amount: 0,
    }),
  );

/** A metadata provider (Stripe, Paddle, Lemon Squeezy, Polar, Dodo, Creem) through its webhook kit. */
export function kitDriver(kit: ProviderKit, traits: Omit<Traits, 'minSaleCents' | 'maxSaleCents'>): Driver {
  const payment = (c: RunContext) => kit.payment({ ref: c.ref, amountCents: c.saleCents, keys: c.keys });
  return {
    name: kit.provider,
    kit,
    traits: { ...traits, minSaleCents: 100, maxSaleCents: 500_000 },
    currency: 'USD',
    transactionId: (c) => payment(c).transactionId,
    build(c, spec, reissue) {
      if (spec.role === 'sale') return webhook(c, payment(c).event);
      if (spec.role === 'total') return webhook(c, polarOrderRefunded(c, spec.totalCents));
      if (spec.role === 'refund') {
        const refundId = `${c.ref}-${spec.key}`;
        if (reissue && traits.also === 'list') return webhook(c, stripeChargeRefunded(c, spec));
        const event = kit.refund({
          ref: c.ref,
          saleAmountCents: c.saleCents,
          refundId,
          amountCents: spec.amountCents,
          totalCents: spec.totalCents,
        });
        // Paddle sends an adjustment as `adjustment.created` and again as `adjustment.updated`.
        return webhook(
          c,
          reissue && kit.provider === 'paddle' ? { ...event, event_type: 'adjustment.created' } : event,
        );
      }
      return webhook(c, disputes[kit.provider]!(c, spec));
    },
  };
}

const apiTraits: Traits = { refunds: 'api', disputes: null, minSaleCents: 100, maxSaleCents: 500_000 };
const vndTraits: Traits = { refunds: 'api', disputes: null, minSaleCents: 10_000, maxSaleCents: 50_000_000 };

/** The direct API: `POST /track/sale` and `POST /track/refund` with the program's live key. */
export const apiDriver: Driver = {
  name: 'api',
  kit: { provider: 'stripe', secret: 'whsec_property_api_unused_0123456789', testSecret: null, sign: () => ({}) },
  traits: apiTraits,
  currency: 'USD',
  transactionId: (c) => `api_${c.ref}`,
  build(c, spec) {
    if (spec.role === 'refund') return apiRefund(c, `api_${c.ref}`, spec);
    return apiCall(c, '/api/v1/track/sale', {
      transaction_id: `api_${c.ref}`,
      amount_cents: c.saleCents,
      currency: 'USD',
      customer_key: c.customerKey,
    });
  },
};

const registerOrder = async (c: RunContext, body: Json) => {
  const res = await c.w.h.request('/api/v1/track/checkout', { body, headers: bearer(c.f.liveKey) });
  if (res.status !== 200) throw new Error(`checkout → ${res.status} ${JSON.stringify(res.body)}`);
};

/** PayOS: a registered order paid by transfer (the published notification, re-signed); refunds through the API. */
export const payosDriver: Driver = {
  name: 'payos',
  kit: { provider: 'payos', secret: PAYOS_CHECKSUM_KEY, testSecret: null, sign: () => ({}) },
  traits: vndTraits,
  currency: 'VND',
  prepare: (c) =>
    registerOrder(c, {
      order_code: String(c.serial),
      customer_key: c.customerKey,
      provider: 'payos',
      amount_cents: c.saleCents,
      currency: 'VND',
    }),
  transactionId: (c) => `FT${c.ref}`,
  build(c, spec) {
    if (spec.role === 'refund') return apiRefund(c, `FT${c.ref}`, spec);
    const data = { orderCode: c.serial, amount: c.saleCents, reference: `FT${c.ref}`, description: `DH${c.serial}` };
    return webhook(c, payosWebhook(data));
  },
};

/** SePay: a registered order paid by transfer (the published sample, `Authorization: Apikey`); refunds through the API. */
export const sepayDriver: Driver = {
  name: 'sepay',
  kit: { provider: 'sepay', secret: SEPAY_API_KEY, testSecret: null, sign: () => sepayAuth(SEPAY_API_KEY) },
  traits: vndTraits,
  currency: 'VND',
  prepare: (c) => registerOrder(c, { order_code: `DH${c.ref.toUpperCase()}`, customer_key: c.customerKey }),
  transactionId: (c) => `sepay_${c.serial}`,
  build(c, spec) {
    if (spec.role === 'refund') return apiRefund(c, `sepay_${c.serial}`, spec);
    const order = `DH${c.ref.toUpperCase()}`;
    return webhook(
      c,
      sepayTransfer({ id: c.serial, code: order, content: `${order} chuyen tien`, transferAmount: c.saleCents }),
    );
  },
};
